import Foundation

/// A published tree, opened once. Files are opened beneath its root one path component at a
/// time with `openat(2)` and `O_NOFOLLOW`, so no symbolic link is ever followed (neither one
/// leading out of the tree nor one inside it: published trees hold plain files only) and no
/// path can climb above the root, whatever the request looked like.
final class StaticTree: Sendable {
    let rootPath: String
    private let rootFD: Int32

    init(path: String) throws(ServerError) {
        // The root itself may be a symlink (e.g. /srv/corpus -> /data/corpus-2026); resolve it once.
        guard let real = realpath(path, nil) else { throw .rootUnavailable(path: path, errno: errno) }
        let resolved = String(cString: real)
        free(real)
        let fd = Self.retrying { Glibc.open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .rootUnavailable(path: path, errno: errno) }
        rootPath = resolved
        rootFD = fd
    }

    deinit { close(rootFD) }

    /// Opens a regular file under the root, or nil when it is missing, not a regular file, or
    /// reached through a symlink. The corresponding C functions are `openat` and `fstat`.
    func open(_ segments: [String]) -> OpenedFile? {
        guard !segments.isEmpty else { return nil }
        var dir = rootFD
        defer { if dir != rootFD { close(dir) } }
        for segment in segments.dropLast() {
            let next = Self.retrying { openat(dir, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            if dir != rootFD { close(dir) }
            guard next >= 0 else { dir = rootFD; return nil }
            dir = next
        }
        // O_NONBLOCK so that a FIFO planted in the tree cannot hang the server thread on open.
        let fd = Self.retrying { openat(dir, segments[segments.count - 1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { close(fd); return nil }
        // O_NONBLOCK stays set: on a regular file it changes nothing (pread and sendfile from it
        // block on the disk either way), and clearing it cost two fcntl calls on every request.
        return OpenedFile(fd: fd, stat: st)
    }

    /// Reads a small file whole (the catalog pointer and catalogs), refusing anything larger than `limit`.
    func read(_ segments: [String], limit: Int64) -> (data: Data, identity: FileIdentity)? {
        guard let file = open(segments), file.size <= limit else { return nil }
        var data = Data(count: Int(file.size))
        let ok = data.withUnsafeMutableBytes { buf -> Bool in
            var done = 0
            while done < buf.count {
                let n = pread(file.fd, buf.baseAddress! + done, buf.count - done, off_t(done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
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
        let fd = Self.retrying { openat(rootFD, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0, let d = fdopendir(fd) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }

    static func retrying(_ call: () -> Int32) -> Int32 {
        while true {
            let r = call()
            if r >= 0 || errno != EINTR { return r }
        }
    }
}

/// What identifies a file's current content for change detection and ETags.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let mtimeSeconds: Int64
    let mtimeNanoseconds: Int64

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        mtimeSeconds = Int64(st.st_mtim.tv_sec)
        mtimeNanoseconds = Int64(st.st_mtim.tv_nsec)
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

    /// Gives up ownership of the descriptor (libmicrohttpd closes it with the response).
    func release() -> Int32 {
        let d = fd
        fd = -1
        return d
    }

    deinit { if fd >= 0 { close(fd) } }
}

@available(*, unavailable) extension OpenedFile: Sendable {}
