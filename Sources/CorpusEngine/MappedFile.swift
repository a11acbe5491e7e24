import Foundation
import CorpusFormat
#if canImport(Glibc)
import Glibc
#endif

/// A whole file memory-mapped read-only and shared (`mmap(PROT_READ, MAP_SHARED)`), unmapped in
/// `deinit`. The file descriptor is closed right after mapping: the mapping alone keeps the
/// file's pages reachable, even after the file is renamed or unlinked.
final class MappedFile {
    let base: UnsafeRawPointer
    let size: Int
    let path: String

    init(path: String) throws {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw EngineError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw EngineError.io(operation: "fstat", path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw EngineError.io(operation: "map", path: path, errno: EINVAL) }
        let size = Int(st.st_size)
        // mmap of zero bytes fails; an empty file is reported by the header check instead.
        let p = mmap(nil, max(size, 1), PROT_READ, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else { throw EngineError.io(operation: "mmap", path: path, errno: errno) }
        // The scan reads every row front to back; ask the kernel to read ahead.
        _ = madvise(p, max(size, 1), MADV_WILLNEED)
        base = UnsafeRawPointer(p)
        self.size = size
        self.path = path
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), max(size, 1)) }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: size) }
}

@available(*, unavailable)
extension MappedFile: Sendable {}
