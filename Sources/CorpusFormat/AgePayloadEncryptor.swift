/// Encrypts a plaintext stream into an age payload (nonce, then STREAM chunks), fed in pieces
/// of any size, holding at most one chunk.
///
/// The payload depends only on the file key and the nonce, not on any header: one payload
/// serves every recipient, each with a header of its own (`AgeHeader.make`).
public final class AgePayloadEncryptor {
    private let cipher: ChaCha20Poly1305
    private let nonce: [UInt8]
    private var counter: UInt64 = 0
    private let pending = AgeChunkBuffer(capacity: AgeSTREAM.chunkSize)
    private let sealed = AgeChunkBuffer(capacity: AgeSTREAM.sealedChunkSize)
    private var started = false
    private var finished = false

    /// `nonce` is for known-answer tests only; leave it out and a fresh one comes from the CSPRNG.
    public init(fileKey: AgeFileKey, nonce given: [UInt8]? = nil) throws(AgeError) {
        let nonce: [UInt8]
        if let given { nonce = given } else { nonce = try AgeError.wrapping { try PlatformCrypto.randomBytes(AgeSTREAM.nonceSize) } }
        guard nonce.count == AgeSTREAM.nonceSize else { throw .malformedKey(what: "payload nonce", reason: "expected 16 bytes") }
        self.nonce = nonce
        cipher = try AgeSTREAM.cipher(fileKey: fileKey, nonce: nonce)
    }

    /// Encrypts `plaintext`, passing out whatever ciphertext is ready. A full chunk is held back
    /// until more plaintext arrives, since only then is it known not to be the final one.
    public func update(_ plaintext: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(!finished, "update after finish")
        try startIfNeeded(sink)
        var offset = 0
        while offset < plaintext.count {
            if pending.isFull { try seal(final: false, sink) }
            offset += pending.fill(from: plaintext, at: offset)
        }
    }

    /// Seals the final chunk (empty only when the whole plaintext is).
    public func finish(sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(!finished, "finish twice")
        try startIfNeeded(sink)
        try seal(final: true, sink)
        finished = true
    }

    private func startIfNeeded(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !started else { return }
        started = true
        try nonce.withUnsafeBytes { try sink($0) }
    }

    private func seal(final: Bool, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let out = sealed.output(pending.count + ChaCha20Poly1305.tagSize)
        try AgeError.wrapping {
            try cipher.seal(pending.bytes, nonce: AgeSTREAM.chunkNonce(counter: counter, final: final), into: out)
        }
        counter += 1
        pending.removeAll()
        try sink(UnsafeRawBufferPointer(out))
    }
}

@available(*, unavailable) extension AgePayloadEncryptor: Sendable {}
