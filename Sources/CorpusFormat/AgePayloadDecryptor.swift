/// Decrypts an age payload (nonce, then STREAM chunks) fed in pieces of any size, passing each
/// chunk's plaintext on only once its tag verifies, and holding at most one sealed chunk.
///
/// `finish` is the check that the payload ended where it should: without it a payload cut at a
/// chunk boundary would look whole (C2SP age, "Payload": streaming decryption MUST signal an
/// error if the end of file is reached without a final chunk).
public final class AgePayloadDecryptor {
    private let fileKey: AgeFileKey
    private var cipher: ChaCha20Poly1305?
    private var nonce: [UInt8] = []
    private var counter: UInt64 = 0
    private let pending: UnsafeMutableRawBufferPointer
    private var pendingCount = 0
    private let plain: UnsafeMutableRawBufferPointer
    private var state = State.open

    private enum State { case open, finished, failed }

    public init(fileKey: AgeFileKey) {
        self.fileKey = fileKey
        pending = .allocate(byteCount: AgeSTREAM.sealedChunkSize, alignment: 64)
        plain = .allocate(byteCount: AgeSTREAM.chunkSize, alignment: 64)
    }

    deinit {
        pending.deallocate()
        plain.deallocate()
    }

    /// Takes the next bytes of the payload; `sink` gets authenticated plaintext only.
    public func update(_ bytes: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(state == .open, "update after finish or a refusal")
        var offset = 0
        while nonce.count < AgeSTREAM.nonceSize, offset < bytes.count {
            nonce.append(bytes[offset])
            offset += 1
        }
        while offset < bytes.count {
            // A full sealed chunk with more bytes after it cannot be the final one.
            if pendingCount == AgeSTREAM.sealedChunkSize { try open(final: false, sink) }
            let n = min(AgeSTREAM.sealedChunkSize - pendingCount, bytes.count - offset)
            UnsafeMutableRawBufferPointer(rebasing: pending[pendingCount..<(pendingCount + n)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]))
            pendingCount += n
            offset += n
        }
    }

    /// The payload has ended: the bytes held must be its final chunk.
    public func finish(sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(state == .open, "finish after finish or a refusal")
        guard nonce.count == AgeSTREAM.nonceSize, pendingCount >= ChaCha20Poly1305.tagSize else {
            state = .failed
            throw AgeError.truncatedPayload(afterChunks: counter)
        }
        // Empty is allowed only as the one chunk of an empty payload.
        if pendingCount == ChaCha20Poly1305.tagSize, counter > 0 {
            state = .failed
            throw AgeError.emptyFinalChunk(chunk: counter)
        }
        try open(final: true, sink)
        state = .finished
    }

    private func open(final: Bool, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if cipher == nil { cipher = try AgeSTREAM.cipher(fileKey: fileKey, nonce: nonce) }
        let sealed = UnsafeRawBufferPointer(rebasing: pending[0..<pendingCount])
        let out = UnsafeMutableRawBufferPointer(rebasing: plain[0..<(pendingCount - ChaCha20Poly1305.tagSize)])
        let opened = try AgeError.wrapping {
            try cipher!.open(sealed, nonce: AgeSTREAM.chunkNonce(counter: counter, final: final), into: out)
        }
        guard opened else {
            state = .failed
            // A full chunk that opens as final, with bytes after it, is a payload extended past its end.
            if !final, (try? cipher!.open(sealed, nonce: AgeSTREAM.chunkNonce(counter: counter, final: true), into: out)) == true {
                throw AgeError.trailingData(afterChunk: counter)
            }
            throw AgeError.chunkAuthenticationFailed(chunk: counter)
        }
        counter += 1
        pendingCount = 0
        try sink(UnsafeRawBufferPointer(out))
    }
}

@available(*, unavailable) extension AgePayloadDecryptor: Sendable {}
