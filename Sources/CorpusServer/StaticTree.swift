import Foundation
import Synchronization
import CorpusFormat
#if os(Linux)
internal import CLinux
#endif

/// A published tree, opened once. Files are opened beneath its root without following any
/// symbolic link (neither one leading out of the tree nor one inside it: published trees hold
/// plain files only) and without any path climbing above the root, whatever the request looked
/// like: on Linux by one `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, elsewhere (or
/// on a kernel before 5.6) one path component at a time with `openat(2)` and `O_NOFOLLOW`.
final class StaticTree: Sendable {
    let rootPath: String
    private let rootFD: Int32
    /// Device and inode of the folder opened: what the path must still name (`isStill`).
    private let rootDevice: UInt64
    private let rootInode: UInt64

    init(path: String) throws(ServerError) {
        // The root itself may be a symlink (e.g. /srv/corpus -> /data/corpus-2026); resolve it once.
        guard let real = realpath(path, nil) else { throw .rootUnavailable(path: path, errno: errno) }
        let resolved = String(cString: real)
        free(real)
        let fd = SystemCall.retrying { Glibc.open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .rootUnavailable(path: path, errno: errno) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            throw .rootUnavailable(path: path, errno: e)
        }
        rootPath = resolved
        rootFD = fd
        rootDevice = UInt64(st.st_dev)
        rootInode = UInt64(st.st_ino)
    }

    /// Whether `path` (followed through symlinks) still names the folder this tree opened, or
    /// names nothing at all (mid-deploy): false only when it names another one. The
    /// corresponding C function is `stat`.
    func isStill(at path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return true }
        return UInt64(st.st_dev) == rootDevice && UInt64(st.st_ino) == rootInode
    }

    deinit { close(rootFD) }

    // O_NONBLOCK so that a FIFO planted in the tree cannot hang the server thread on open. It stays
    // set: on a regular file it changes nothing (pread and sendfile from it block on the disk
    // either way), and clearing it cost two fcntl calls on every request.
    private static let fileFlags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY

    /// Opens a regular file under the root, or nil when it is missing, not a regular file, or
    /// reached through a symlink. The corresponding C functions are `openat2` (or `openat`) and `fstat`.
    func open(_ segments: [String]) -> OpenedFile? {
        guard !segments.isEmpty else { return nil }
        let fd = openBeneath(segments)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { close(fd); return nil }
        return OpenedFile(fd: fd, stat: st)
    }

    /// The identity of the regular file `segments` name now, reached as `open` reaches it (no
    /// symlink followed, nothing above the root), without opening it for reading: for checking
    /// that a file opened before (`SmallFileCache`) is still the one there. On Linux one
    /// `openat2(2)` with `O_PATH`, `fstat` and `close`.
    func currentIdentity(_ segments: [String]) -> FileIdentity? {
        #if os(Linux)
        if !segments.isEmpty, !Self.openat2Missing.load(ordering: .relaxed) {
            let fd = SystemCall.retrying { corpus_openat_beneath(rootFD, segments.joined(separator: "/"), corpus_o_path() | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            return FileIdentity(st)
        }
        #endif
        return open(segments)?.identity
    }

    private func openBeneath(_ segments: [String]) -> Int32 {
        #if os(Linux)
        if !Self.openat2Missing.load(ordering: .relaxed) {
            let fd = SystemCall.retrying { corpus_openat_beneath(rootFD, segments.joined(separator: "/"), Self.fileFlags) }
            guard fd < 0, errno == ENOSYS else { return fd }
            Self.openat2Missing.store(true, ordering: .relaxed)
        }
        #endif
        return walk(segments)
    }

    #if os(Linux)
    /// Set once a kernel answered ENOSYS: the walk is used from then on.
    private static let openat2Missing = Atomic<Bool>(false)
    #endif

    /// One `openat` per component, each with `O_NOFOLLOW`.
    private func walk(_ segments: [String]) -> Int32 {
        var dir = rootFD
        defer { if dir != rootFD { close(dir) } }
        for segment in segments.dropLast() {
            let next = SystemCall.retrying { openat(dir, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            if dir != rootFD { close(dir) }
            guard next >= 0 else { dir = rootFD; return -1 }
            dir = next
        }
        return SystemCall.retrying { openat(dir, segments[segments.count - 1], Self.fileFlags) }
    }

    /// A `SmallFileCache` for this tree: on Linux one that learns of changes from a
    /// `TreeChangeWatch` on it (when inotify is at hand), elsewhere one that looks at each file.
    func smallFileCache(byteLimit: Int) -> SmallFileCache {
        #if os(Linux)
        return SmallFileCache(byteLimit: byteLimit, watch: byteLimit > 0 ? TreeChangeWatch(rootFD: rootFD) : nil)
        #else
        return SmallFileCache(byteLimit: byteLimit)
        #endif
    }

    /// Reads a small file whole (the catalog pointer and catalogs), refusing anything larger than `limit`.
    func read(_ segments: [String], limit: Int64) -> (data: Data, identity: FileIdentity)? {
        guard let file = open(segments), file.size <= limit else { return nil }
        var data = Data(count: Int(file.size))
        let ok = data.withUnsafeMutableBytes { FileIO.read(file.fd, into: $0, at: 0) }
        return ok ? (data, file.identity) : nil
    }

    /// The identity of a file or folder under the root without opening it for reading, for
    /// noticing changes cheaply. nil when missing or reached through a symlink.
    func identity(_ segments: [String]) -> FileIdentity? {
        var st = stat()
        let rel = segments.joined(separator: "/")
        guard fstatat(rootFD, rel.isEmpty ? "." : rel, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileIdentity(st)
    }

    /// Names in a folder directly under the root (for catalogs/), skipping dotfiles.
    func list(_ folder: String) -> [String] {
        let fd = SystemCall.retrying { openat(rootFD, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0, let d = fdopendir(fd) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }
}

/// What identifies a file's current content for change detection and ETags.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let mtimeSeconds: Int64
    let mtimeNanoseconds: Int64
    /// The inode's change time: it moves on every write and attribute change, even one that keeps
    /// the size and sets the mtime back (`touch -d`).
    let ctimeSeconds: Int64
    let ctimeNanoseconds: Int64

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        mtimeSeconds = Int64(st.st_mtim.tv_sec)
        mtimeNanoseconds = Int64(st.st_mtim.tv_nsec)
        ctimeSeconds = Int64(st.st_ctim.tv_sec)
        ctimeNanoseconds = Int64(st.st_ctim.tv_nsec)
    }
}

/// An open regular file, closed in deinit unless its descriptor was handed to a response.
final class OpenedFile {
    private(set) var fd: Int32
    let identity: FileIdentity

    init(fd: Int32, stat st: stat) {
        self.fd = fd
        self.identity = FileIdentity(st)
    }

    var size: Int64 { identity.size }

    /// The identity of the open file now (`fstat`), nil if that fails.
    func identityNow() -> FileIdentity? {
        var st = stat()
        return fstat(fd, &st) == 0 ? FileIdentity(st) : nil
    }

    /// Gives up ownership of the descriptor (libmicrohttpd closes it with the response).
    func release() -> Int32 {
        let d = fd
        fd = -1
        return d
    }

    deinit { if fd >= 0 { close(fd) } }
}

@available(*, unavailable) extension OpenedFile: Sendable {}
