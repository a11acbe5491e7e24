import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small durable file operations every layer needs: atomic replace, directory creation, fsync.
public enum FileIO {
    /// Writes `data` to a temporary sibling, fsyncs it, and renames it over `path`,
    /// so readers see the old file or the new one, never a half-written one.
    public static func writeAtomically(_ data: Data, to path: String, mode: mode_t = 0o644) throws {
        let dir = (path as NSString).deletingLastPathComponent
        let tmp = temporarySibling(of: path)
        let fd = SystemCall.retrying { open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw FormatError.io(operation: "create", path: tmp, errno: errno) }
        var ok = false
        defer {
            if !ok { unlink(tmp) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { try writeAll(fd, $0, path: tmp) }
            guard fsync(fd) == 0 else { throw FormatError.io(operation: "fsync", path: tmp, errno: errno) }
        }
        guard rename(tmp, path) == 0 else { throw FormatError.io(operation: "rename", path: path, errno: errno) }
        ok = true
        syncDirectory(dir.isEmpty ? "." : dir)
    }

    /// A fresh hidden name in the folder of `path` to build it under before it is renamed into
    /// place: `.<name>.<kind>-<pid>-<random>`. The pid lets `gc` leave a live process's work alone.
    public static func temporarySibling(of path: String, kind: String = "tmp") -> String {
        let dir = (path as NSString).deletingLastPathComponent
        return "\(dir.isEmpty ? "." : dir)/.\((path as NSString).lastPathComponent).\(kind)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Puts a finished file written under `temporarySibling(of: path)` in place, durably: fsyncs it,
    /// renames it over `path`, and fsyncs the folder so the rename survives a crash.
    public static func commit(_ tmp: String, to path: String) throws {
        let fd = SystemCall.retrying { open(tmp, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: tmp, errno: errno) }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else { throw FormatError.io(operation: "fsync", path: tmp, errno: code) }
        guard rename(tmp, path) == 0 else { throw FormatError.io(operation: "rename", path: path, errno: errno) }
        let dir = (path as NSString).deletingLastPathComponent
        syncDirectory(dir.isEmpty ? "." : dir)
    }

    /// Creates the file `path`, which must not exist, writes `data` and fsyncs it; no rename, for a
    /// file inside a folder that is itself renamed into place once complete (an install's staging).
    public static func writeNew(_ data: Data, to path: String, mode: mode_t = 0o644) throws {
        try writeNew(path, mode: mode) { file in try data.withUnsafeBytes { try file.write($0) } }
    }

    /// `writeNew` for content `body` writes itself, front to back (streamed members).
    public static func writeNew(_ path: String, mode: mode_t = 0o644, _ body: (NewFileWriter) throws -> Void) throws {
        let fd = SystemCall.retrying { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw FormatError.io(operation: "create", path: path, errno: errno) }
        defer { close(fd) }
        try body(NewFileWriter(fd: fd, path: path))
        guard fsync(fd) == 0 else { throw FormatError.io(operation: "fsync", path: path, errno: errno) }
    }

    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = SystemCall.retrying { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
            guard n > 0 else { throw FormatError.io(operation: "write", path: path, errno: errno) }
            offset += n
        }
    }

    /// Fills `buffer` with the bytes of `fd` from `offset` on (`pread`, retried on EINTR).
    /// - Returns: false when a read fails or the file ends first (it shrank under the reader).
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        var done = 0
        while done < buffer.count {
            let n = SystemCall.retrying { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done)) }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    public static func createDirectory(_ path: String, mode: mode_t = 0o755) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: Int(mode)])
        } catch {
            throw FormatError.io(operation: "create directory", path: path, errno: (error as NSError).code == 0 ? EIO : Int32(EACCES))
        }
    }

    /// fsyncs a directory so that a rename inside it survives a crash.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// Removes a file or folder tree; missing is fine.
    public static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    public static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    public static func fileSize(_ path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }
}
