import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder opened once, whose files are opened beneath it one path component at a time with
/// `openat(2)` and `O_NOFOLLOW`: no symbolic link is followed on the way, so nothing outside the
/// folder is reached, whatever is renamed or swapped into a link after a path was checked.
///
/// Links are for the caller to judge (`resolve(link:)` says where one leads, by `realpath(3)`); a
/// caller that decides to follow one opens the resolved path, which again is walked without
/// following anything. The corresponding C functions are `openat`, `fstatat`, `fdopendir`, `realpath`.
public final class ConfinedDirectory: Sendable {
    /// The folder's real path (`realpath` of what it was opened with).
    public let path: String
    private let fd: Int32

    /// Why a file beneath the folder could not be opened.
    public enum OpenError: Error, Equatable, Sendable {
        case missing
        /// The path, or a folder on it, is a symbolic link (now, whatever it was when listed).
        case symbolicLink
        case notRegularFile
        case failed(errno: Int32)
    }

    /// One name in a folder, as `lstat` sees it.
    public enum EntryKind: Equatable, Sendable {
        case file(size: Int64)
        case directory
        case symbolicLink
        case other
    }

    /// Where a symbolic link leads once every link on the way is resolved.
    public enum LinkTarget: Equatable, Sendable {
        /// Inside the folder: the target's real path relative to it ("" for the folder itself).
        case inside(String)
        case outside
        /// Nothing (dangling, a loop, or unreadable on the way).
        case broken
    }

    /// Opens `path` (which may itself be or pass through a link: it is the caller's choice of folder).
    public init(path: String) throws(FormatError) {
        guard let real = realpath(path, nil) else { throw .io(operation: "open folder", path: path, errno: errno) }
        let resolved = String(cString: real)
        free(real)
        let fd = SystemCall.retrying { open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(operation: "open folder", path: path, errno: errno) }
        self.path = resolved
        self.fd = fd
    }

    deinit { close(fd) }

    /// The names in the folder at `relative` ("" for the folder itself) with their kinds, unsorted,
    /// `.` and `..` left out.
    public func entries(_ relative: String) throws(OpenError) -> [(name: String, kind: EntryKind)] {
        // Always a descriptor of its own (a duplicate for the root), which closedir closes.
        let dir = try openDirectory(segments(relative))
        guard let stream = fdopendir(dir) else {
            let e = errno
            close(dir)
            throw .failed(errno: e)
        }
        defer { closedir(stream) }
        var out: [(String, EntryKind)] = []
        while let e = readdir(stream) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            var st = stat()
            guard fstatat(dirfd(stream), name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            out.append((name, Self.kind(st)))
        }
        return out
    }

    /// Opens the regular file at `relative` for reading, following no link on the way.
    public func openFile(_ relative: String) throws(OpenError) -> (reader: FileHandleReader, size: Int64) {
        let parts = segments(relative)
        guard let last = parts.last else { throw .notRegularFile }
        let dir = try openDirectory(Array(parts.dropLast()))
        defer { close(dir) }
        // O_NONBLOCK so that a FIFO put in place of a file cannot hang the open.
        let file = SystemCall.retrying { openat(dir, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard file >= 0 else { throw classify(errno, dir: dir, name: last) }
        var st = stat()
        guard fstat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(file)
            throw .notRegularFile
        }
        _ = fcntl(file, F_SETFL, fcntl(file, F_GETFL) & ~O_NONBLOCK)
        return (FileHandleReader(adopting: file, path: "\(path)/\(relative)"), Int64(st.st_size))
    }

    /// What kind of thing is at `relative`, following no link on the way (nil when nothing is, or
    /// a link is in the way).
    public func kind(of relative: String) -> EntryKind? {
        let parts = segments(relative)
        guard let last = parts.last else { return .directory }
        guard let dir = try? openDirectory(Array(parts.dropLast())) else { return nil }
        defer { close(dir) }
        var st = stat()
        guard fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return Self.kind(st)
    }

    /// Where the link at `relative` leads. Only a judgement: opening the target walks it again.
    public func resolve(link relative: String) -> LinkTarget {
        guard let real = realpath("\(path)/\(relative)", nil) else { return .broken }
        let target = String(cString: real)
        free(real)
        if target == path { return .inside("") }
        let prefix = path == "/" ? "/" : path + "/"
        guard target.hasPrefix(prefix) else { return .outside }
        return .inside(String(target.dropFirst(prefix.count)))
    }

    private func segments(_ relative: String) -> [String] {
        relative.split(separator: "/").map(String.init)
    }

    /// Opens the folder `parts` below the root one component at a time; the root's own descriptor
    /// is never handed out (a duplicate is, for an empty path).
    private func openDirectory(_ parts: [String]) throws(OpenError) -> Int32 {
        guard !parts.isEmpty else {
            let d = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard d >= 0 else { throw .failed(errno: errno) }
            return d
        }
        var dir = fd
        for part in parts {
            guard part != "..", part != "." else { if dir != fd { close(dir) }; throw .missing }
            let next = SystemCall.retrying { openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            let failure = next < 0 ? classify(errno, dir: dir, name: part) : nil
            if dir != fd { close(dir) }
            if let failure { throw failure }
            dir = next
        }
        return dir
    }

    private func classify(_ code: Int32, dir: Int32, name: String) -> OpenError {
        var st = stat()
        if fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 {
            if st.st_mode & S_IFMT == S_IFLNK { return .symbolicLink }
            if code == ENOTDIR || code == ELOOP { return .notRegularFile }
        } else if errno == ENOENT {
            return .missing
        }
        return code == ENOENT ? .missing : .failed(errno: code)
    }

    private static func kind(_ st: stat) -> EntryKind {
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int64(st.st_size))
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }
}
