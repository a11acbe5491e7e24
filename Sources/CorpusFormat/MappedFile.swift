import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole regular file memory-mapped read-only and shared, unmapped in `deinit`: the one memory
/// map of the package (vector sidecars, safetensors weights, the builder's deflate input).
///
/// The file descriptor is closed right after mapping: the mapping alone keeps the file's pages
/// reachable, even after the file is renamed or unlinked, which is what lets a search in flight
/// outlive an install. An empty file is not mapped at all (`mmap` of zero bytes fails); its
/// `bytes` are empty. The corresponding C functions are `open`, `fstat`, `mmap`, `madvise` and
/// `munmap`.
///
/// `@unchecked Sendable`: the mapping is `PROT_READ`, its address and length never change after
/// `init`, and it is unmapped only in `deinit`, when no other reference to it can exist. Callers
/// that share it across threads only read through it.
public final class MappedFile: @unchecked Sendable {
    public let path: String
    public let size: Int
    private let base: UnsafeRawPointer?

    /// What the kernel is told about the coming reads.
    public enum Advice: Sendable {
        /// The kernel's default read-ahead.
        case normal
        /// Every page will be read soon (`MADV_WILLNEED`): start reading the whole file now.
        case willNeed
    }

    /// Maps `path` (`open(O_RDONLY)`, `fstat`, `mmap(PROT_READ, MAP_SHARED)`).
    /// - Throws: `MappedFileError.io` naming the call that failed, or `.notRegularFile`.
    public init(path: String, advice: Advice = .normal) throws(MappedFileError) {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(call: "open", path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(call: "fstat", path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .notRegularFile(path: path) }
        let size = Int(st.st_size)
        var base: UnsafeRawPointer?
        if size > 0 {
            let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0)
            guard let p, p != MAP_FAILED else { throw .io(call: "mmap", path: path, errno: errno) }
            // Advice only: a kernel that ignores it reads the pages on first touch instead.
            if advice == .willNeed { _ = madvise(p, size, MADV_WILLNEED) }
            base = UnsafeRawPointer(p)
        }
        self.path = path
        self.size = size
        self.base = base
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), size) }
    }

    /// Tells the kernel the pages wholly inside `range` will not be read again soon
    /// (`MADV_DONTNEED`): they leave this process's resident memory, and a later read faults them
    /// back in from the file. For bytes copied out once, such as weights widened to f32.
    public func willNotNeed(_ range: Range<Int>) {
        guard let base, !range.isEmpty else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + page - 1) / page * page, end = min(range.upperBound, size) / page * page
        guard start < end else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
    }

    /// The file's bytes, valid while this object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: size) }
}

/// Why a file could not be mapped.
public enum MappedFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call (`open`, `fstat` or `mmap`) failed with `errno`.
    case io(call: String, path: String, errno: Int32)
    /// The path names a folder, device or other non-regular file: there is nothing to map.
    case notRegularFile(path: String)

    public var path: String {
        switch self {
        case let .io(_, path, _), let .notRegularFile(path): return path
        }
    }

    /// The failure as an I/O error of a caller's domain reports it (`operation`, `errno`): the call
    /// that failed, or `map` with EINVAL for a file that is not regular.
    public var operation: String {
        if case let .io(call, _, _) = self { return call }
        return "map"
    }

    public var errno: Int32 {
        if case let .io(_, _, code) = self { return code }
        return EINVAL
    }

    public var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}
