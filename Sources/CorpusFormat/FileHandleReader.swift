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

    /// Takes over a descriptor already open for reading (closed in `deinit`).
    public init(adopting fd: Int32, path: String, chunkSize: Int = 1 << 20) {
        self.fd = fd
        self.path = path
        self.chunkSize = chunkSize
    }

    deinit { close(fd) }

    /// The open descriptor, borrowed: valid while the reader lives (dup it to keep it longer).
    public var descriptor: Int32 { fd }

    /// Reads the rest of the file, refusing it once it holds more than `limit` bytes.
    /// - Returns: nil when the file is larger than `limit`.
    public func readAll(limit: Int) throws -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(chunkSize, limit + 1))
        while true {
            let n = chunk.withUnsafeMutableBytes { buf in SystemCall.retrying { read(fd, buf.baseAddress, buf.count) } }
            if n < 0 { throw FormatError.io(operation: "read", path: path, errno: errno) }
            if n == 0 { return out }
            guard out.count + n <= limit else { return nil }
            out += chunk[0..<n]
        }
    }

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
