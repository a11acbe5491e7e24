import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Random access to the bytes a zip archive is read from: an open file, or the plaintext of an
/// encrypted payload decrypted chunk by chunk as it is asked for (`AgePayloadReader`), so an
/// encrypted bundle is read by the same pre-check and zlib reader as a plain one without its
/// plaintext ever being written out.
protocol ZipByteSource: AnyObject {
    /// The archive's length in bytes.
    func byteCount() throws -> Int64
    /// Reads up to `buffer.count` bytes at `offset`; 0 only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
}

/// An open file read with `pread`; the descriptor stays the caller's unless `owning`.
final class DescriptorByteSource: ZipByteSource {
    let fd: Int32
    let path: String
    private let owning: Bool

    init(fd: Int32, path: String, owning: Bool) {
        self.fd = fd
        self.path = path
        self.owning = owning
    }

    deinit { if owning { close(fd) } }

    func byteCount() throws -> Int64 {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FormatError.io(operation: "stat", path: path, errno: errno) }
        return Int64(st.st_size)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = SystemCall.retrying { pread(fd, base, buffer.count, off_t(offset)) }
        if n < 0 { throw FormatError.io(operation: "read", path: path, errno: errno) }
        return n
    }
}

@available(*, unavailable) extension DescriptorByteSource: Sendable {}
