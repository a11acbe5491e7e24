import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file in fixed chunks through a raw descriptor, reusing one buffer.
///
/// Foundation's `FileHandle` allocates a `Data` per read; for multi-gigabyte
/// bundles one reused buffer keeps memory flat.
public final class FileHandleReader {
    private let fd: Int32
    public let path: String
    private let chunkSize: Int

    public init(path: String, chunkSize: Int = 1 << 20) throws {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        self.fd = fd
        self.path = path
        self.chunkSize = chunkSize
    }

    deinit { close(fd) }

    /// Calls `body` with each chunk until end of file.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = SystemCall.retrying { read(fd, buffer.baseAddress, chunkSize) }
            if n < 0 { throw FormatError.io(operation: "read", path: path, errno: errno) }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }
}

@available(*, unavailable)
extension FileHandleReader: Sendable {}

/// Retries system calls interrupted by signals.
public enum SystemCall {
    public static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let r = call()
            if r < 0 && errno == EINTR { continue }
            return r
        }
    }
}
