import CorpusFormat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Free space on a folder's volume. The corresponding C function is `statvfs`.
enum FreeSpace {
    /// Bytes an unprivileged process may still write on the volume holding `path`.
    static func available(at path: String) throws -> Int64 {
        var st = statvfs()
        let rc = SystemCall.retrying { statvfs(path, &st) }
        guard rc == 0 else { throw SyncError.io(operation: "statvfs", path: path, errno: errno) }
        return Int64(st.f_bavail) * Int64(st.f_frsize)
    }

    /// What is kept free beyond a write's own bytes, for the file system's own blocks (folders,
    /// inodes, indirect blocks) and the small files written beside it.
    static let margin: Int64 = 1 << 20

    /// Throws `insufficientSpace` unless `needed` bytes (plus a small margin for the file system)
    /// fit; returns the bytes available.
    @discardableResult
    static func require(_ needed: Int64, at path: String, margin: Int64 = margin) throws -> Int64 {
        let available = try available(at: path)
        guard available >= needed + margin else {
            throw SyncError.insufficientSpace(path: path, needed: needed, margin: margin, available: available)
        }
        return available
    }
}
