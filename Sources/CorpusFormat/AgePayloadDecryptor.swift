/// Decrypts an age payload (nonce, then STREAM chunks) fed in pieces of any size, passing each
/// chunk's plaintext on only once its tag verifies, and holding at most one sealed chunk.
///
/// A full-size chunk is opened as soon as it is whole, as a non-final chunk and, failing that,
/// as the final one (as the reference implementation does, so the plaintext released before a
/// refusal is the same); any byte after a final chunk is then refused. `finish` is the check
/// that the payload ended where it should: without it a payload cut at a chunk boundary would
/// look whole (C2SP age, "Payload": streaming decryption MUST signal an error if the end of
/// file is reached without a final chunk).
public final class AgePayloadDecryptor {
    private let fileKey: AgeFileKey
    private var cipher: ChaCha20Poly1305?
    private var nonce: [UInt8] = []
    private var counter: UInt64 = 0
    private let pending = AgeChunkBuffer(capacity: AgeSTREAM.sealedChunkSize)
    private let plain = AgeChunkBuffer(capacity: AgeSTREAM.chunkSize)
    private var state = State.open

    private enum State { case open, afterFinalChunk, finished, failed }

    public init(fileKey: AgeFileKey) {
        self.fileKey = fileKey
    }

    /// Takes the next bytes of the payload; `sink` gets authenticated plaintext only.
    public func update(_ bytes: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(state == .open || state == .afterFinalChunk, "update after finish or a refusal")
        guard !bytes.isEmpty else { return }
        if state == .afterFinalChunk { try fail(.trailingData(afterChunk: counter - 1)) }
        var offset = 0
        while nonce.count < AgeSTREAM.nonceSize, offset < bytes.count {
            nonce.append(bytes[offset])
            offset += 1
        }
        while offset < bytes.count {
            if state == .afterFinalChunk { try fail(.trailingData(afterChunk: counter - 1)) }
            offset += pending.fill(from: bytes, at: offset)
            if pending.isFull {
                if try open(final: false, sink) { continue }
                if try open(final: true, sink) { state = .afterFinalChunk; continue }
                try fail(.chunkAuthenticationFailed(chunk: counter))
            }
        }
    }

    /// The payload has ended: it must have ended with its final chunk.
    public func finish(sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(state == .open || state == .afterFinalChunk, "finish after finish or a refusal")
        if state == .afterFinalChunk {
            state = .finished
            return
        }
        guard nonce.count == AgeSTREAM.nonceSize, pending.count >= ChaCha20Poly1305.tagSize else {
            try fail(.truncatedPayload(afterChunks: counter))
        }
        // Empty is allowed only as the one chunk of an empty payload.
        if pending.count == ChaCha20Poly1305.tagSize, counter > 0 { try fail(.emptyFinalChunk(chunk: counter)) }
        guard try open(final: true, sink) else { try fail(.chunkAuthenticationFailed(chunk: counter)) }
        state = .finished
    }

    private func fail(_ error: AgeError) throws -> Never {
        state = .failed
        throw error
    }

    /// Opens the held chunk and passes its plaintext on; false (nothing passed) when its tag
    /// does not verify under this flag.
    private func open(final: Bool, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        if cipher == nil { cipher = try AgeSTREAM.cipher(fileKey: fileKey, nonce: nonce) }
        let out = plain.output(pending.count - ChaCha20Poly1305.tagSize)
        let opened = try AgeError.wrapping {
            try cipher!.open(pending.bytes, nonce: AgeSTREAM.chunkNonce(counter: counter, final: final), into: out)
        }
        guard opened else { return false }
        counter += 1
        pending.removeAll()
        try sink(UnsafeRawBufferPointer(out))
        return true
    }
}

@available(*, unavailable) extension AgePayloadDecryptor: Sendable {}
