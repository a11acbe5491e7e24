import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if os(Linux)
internal import CLinux
#endif

/// Writes a new file front to back for `FileIO.writeNew`, which fsyncs it when the body is done.
///
/// Every `writebackWindow` bytes it asks the kernel to start writing the part just finished to
/// disk (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait). Without that, the
/// whole file sits in the page cache until the final fsync, which then waits for all of it: for
/// the 1 GiB vectors file of an install, about as long as writing it had taken. With it, the disk
/// works while the rest is written, and the fsync waits for the last window only. Durability is
/// the same: the fsync still decides.
public final class NewFileWriter {
    let fd: Int32
    let path: String
    private(set) var written: Int64 = 0
    private var writebackStart: Int64 = 0
    /// 8 MiB: large enough for the disk to write in big requests, small enough that the fsync's
    /// remainder is a few milliseconds of writing.
    static let writebackWindow: Int64 = 8 << 20

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try FileIO.writeAll(fd, bytes, path: path)
        written += Int64(bytes.count)
        #if os(Linux)
        while written - writebackStart >= Self.writebackWindow {
            // A failure here (ENOSYS, or a file system without it) loses nothing: the fsync writes it all.
            _ = corpus_start_writeback(fd, writebackStart, Self.writebackWindow)
            writebackStart += Self.writebackWindow
        }
        #endif
    }
}

@available(*, unavailable) extension NewFileWriter: Sendable {}
