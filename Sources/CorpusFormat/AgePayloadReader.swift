import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Random access to the plaintext of an age payload file (C2SP age, "Payload"), for reading the
/// zip archive inside it without writing the plaintext anywhere.
///
/// Every STREAM chunk has its own nonce (its index and the last-chunk flag), so any chunk can be
/// opened and authenticated alone: a read decrypts the chunk holding the offset asked for (the
/// two most recent stay cached; a zip reader goes back only to headers it just read). The
/// refusals are the streaming decryptor's (`AgePayloadDecryptor`), decided chunk by chunk: a
/// chunk whose tag fails, a payload that ends without its final chunk, a final chunk before the
/// end (trailing data), an empty final chunk after others. The last chunk is opened when the
/// reader is made, so the plaintext size it reports is one the payload authenticates.
public final class AgePayloadReader {
    public let path: String
    /// Bytes of plaintext.
    public let size: Int64
    private let fd: Int32
    private let cipher: ChaCha20Poly1305
    private let chunkCount: UInt64
    private let lastSealedSize: Int
    private let sealed = AgeChunkBuffer(capacity: AgeSTREAM.sealedChunkSize)
    private var cache: [(index: UInt64, plain: AgeChunkBuffer)] = []
    private let lock = NSLock()

    /// Opens the payload at `path` under `fileKey` and authenticates its last chunk.
    /// - Throws: `FormatError.io` when the file does not read, `AgeError` for a refusal.
    public init(path: String, fileKey: AgeFileKey) throws {
        self.path = path
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        self.fd = fd
        do {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw FormatError.io(operation: "stat", path: path, errno: errno) }
            let body = Int64(st.st_size) - Int64(AgeSTREAM.nonceSize)
            guard body > 0 else { throw AgeError.truncatedPayload(afterChunks: 0) }
            let sealedSize = Int64(AgeSTREAM.sealedChunkSize)
            chunkCount = UInt64((body + sealedSize - 1) / sealedSize)
            lastSealedSize = Int(body - Int64(chunkCount - 1) * sealedSize)
            var nonce = [UInt8](repeating: 0, count: AgeSTREAM.nonceSize)
            try nonce.withUnsafeMutableBytes { try Self.readExactly(fd, path: path, into: $0, at: 0, chunk: 0) }
            cipher = try AgeSTREAM.cipher(fileKey: fileKey, nonce: nonce)
            size = body - Int64(chunkCount) * Int64(ChaCha20Poly1305.tagSize)
        } catch {
            close(fd)
            throw error
        }
        // As `AgePayloadDecryptor.finish` decides the end: too short for a tag, empty after
        // other chunks, or a full chunk that opens only as a middle one are all refused.
        // A tail too short for a tag follows either a middle chunk (the payload was cut) or a
        // final one (bytes after it); reading the chunk before it tells which.
        try lock.withLock {
            if lastSealedSize < ChaCha20Poly1305.tagSize {
                if chunkCount > 1 { _ = try chunk(chunkCount - 2) }
                throw AgeError.truncatedPayload(afterChunks: chunkCount - 1)
            }
            if lastSealedSize == ChaCha20Poly1305.tagSize, chunkCount > 1 { throw AgeError.emptyFinalChunk(chunk: chunkCount - 1) }
            _ = try chunk(chunkCount - 1)
        }
    }

    deinit { close(fd) }

    /// Reads up to `buffer.count` plaintext bytes at `offset`; 0 only at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0 else { return 0 }
        return try lock.withLock {
            var done = 0
            while done < buffer.count, offset + Int64(done) < size {
                let at = offset + Int64(done)
                let plain = try chunk(UInt64(at / Int64(AgeSTREAM.chunkSize)))
                let within = Int(at % Int64(AgeSTREAM.chunkSize))
                let n = min(buffer.count - done, plain.count - within)
                UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + n)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: plain.bytes[within..<(within + n)]))
                done += n
            }
            return done
        }
    }

    /// The authenticated plaintext of chunk `index`, from the cache or opened now.
    private func chunk(_ index: UInt64) throws -> AgeChunkBuffer {
        if let hit = cache.firstIndex(where: { $0.index == index }) {
            let entry = cache.remove(at: hit)
            cache.append(entry)
            return entry.plain
        }
        let plain = cache.count < 2 ? AgeChunkBuffer(capacity: AgeSTREAM.chunkSize) : cache.removeFirst().plain
        let last = index == chunkCount - 1
        let sealedCount = last ? lastSealedSize : AgeSTREAM.sealedChunkSize
        let offset = Int64(AgeSTREAM.nonceSize) + Int64(index) * Int64(AgeSTREAM.sealedChunkSize)
        try Self.readExactly(fd, path: path, into: sealed.output(sealedCount), at: offset, chunk: index)
        let out = plain.output(sealedCount - ChaCha20Poly1305.tagSize)
        if try openChunk(index, final: last, into: out) {
            cache.append((index, plain))
            return plain
        }
        // The other flag tells a misplaced final chunk from a tampered one, as the streaming
        // decryptor does: final in the middle means bytes follow it; a full last chunk that opens
        // only as a middle one means the payload was cut at a chunk boundary.
        if sealedCount == AgeSTREAM.sealedChunkSize, try openChunk(index, final: !last, into: out) {
            throw last ? AgeError.truncatedPayload(afterChunks: chunkCount) : AgeError.trailingData(afterChunk: index)
        }
        throw AgeError.chunkAuthenticationFailed(chunk: index)
    }

    private func openChunk(_ index: UInt64, final: Bool, into out: UnsafeMutableRawBufferPointer) throws -> Bool {
        try AgeError.wrapping { try cipher.open(sealed.bytes, nonce: AgeSTREAM.chunkNonce(counter: index, final: final), into: out) }
    }

    /// Fills `buffer` from `offset`; a file that ends first (shortened since it was opened) is a
    /// truncated payload.
    private static func readExactly(_ fd: Int32, path: String, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
                                    chunk: UInt64) throws {
        var done = 0
        while done < buffer.count {
            let n = SystemCall.retrying { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done))) }
            if n < 0 { throw FormatError.io(operation: "read", path: path, errno: errno) }
            if n == 0 { throw AgeError.truncatedPayload(afterChunks: chunk) }
            done += n
        }
    }
}

extension AgePayloadReader: ZipByteSource {
    func byteCount() -> Int64 { size }
}

@available(*, unavailable) extension AgePayloadReader: Sendable {}
