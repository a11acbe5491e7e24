#if os(Linux)
import Glibc
import Synchronization
import CorpusFormat
internal import CLinux

/// Tells whether anything changed on the paths of the files `SmallFileCache` holds, by inotify
/// watches on each file and on every folder from the tree's root down to it.
///
/// The kernel queues an inotify event inside the system call that makes the change (rename,
/// unlink, write, chmod, a folder swapped for a symlink), before that call returns. So a
/// non-blocking read of the queue that finds it empty proves that nothing watched changed before
/// the read began, which is what a look at the file's identity proved before, at a sixth of the
/// cost: one `read` instead of `openat2`, `fstat` and `close` (0.5 µs against 3.4 µs here), on
/// every request answered from the cache.
///
/// An event counts as a change when it is about a watched file or folder itself (written, its
/// mode changed, deleted, moved) or about a watched path's name in its folder (something renamed
/// over it, or it renamed away). Events about other names in a watched folder do not count: a
/// file written beside the tree's cached files (a log, a publish's new bundles) leaves them
/// cached. On a change the owner forgets every entry and every watch (`forgetAll`), and watches
/// are added again as files are cached again; trees change when a publish lands, rarely.
///
/// A file system mounted over a folder of the tree (or unmounted from it) raises no inotify event,
/// yet changes what every path below names. So the mount table is watched too:
/// `/proc/self/mountinfo` polls readable with POLLPRI once after any mount or unmount in the
/// namespace (proc(5); the kernel raises it inside the mount call, as it queues inotify events),
/// and that counts as a change. One `poll` of both descriptors replaces the read of the queue on
/// a hit; the queue is read only when it holds something.
final class TreeChangeWatch: Sendable {
    private let fd: Int32
    /// `/proc/self/mountinfo`, open for its POLLPRI.
    private let mounts: Int32
    /// `/proc/self/fd/N` of the tree's root: inotify takes paths only, and this one names the
    /// folder the server opened even if its path was renamed or replaced since.
    private let rootPath: String

    private struct Watches {
        /// Paths under the root (`""` the root itself) with a watch on what they named when added.
        var byPath: [String: Int32] = [:]
        /// The paths each watch was added for (one file reached by two paths has one watch).
        var byDescriptor: [Int32: [String]] = [:]

        mutating func add(_ path: String, _ wd: Int32) {
            byPath[path] = wd
            byDescriptor[wd, default: []].append(path)
        }

        /// Whether an event on watch `wd`, about `name` in it (nil: about the watched thing
        /// itself), touches a watched path.
        func touches(wd: Int32, name: String?) -> Bool {
            guard let name else { return true }
            return byDescriptor[wd, default: []].contains { byPath[$0.isEmpty ? name : $0 + "/" + name] != nil }
        }
    }

    private let watched = Mutex(Watches())

    /// A change to the file or folder itself, or to the names in a folder. Not IN_ACCESS or
    /// IN_OPEN: the server's own reads must not count.
    private static let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
                                     | IN_DELETE_SELF | IN_MOVE_SELF)

    /// File systems whose every change passes through this kernel, so inotify reports it: ext2-4,
    /// XFS, Btrfs, tmpfs, F2FS, ZFS, overlayfs (a container's own layer). Not NFS, SMB, CephFS, 9p,
    /// FUSE (sshfs, s3fs) or cluster file systems: there another machine's writes raise no event
    /// here, and a publisher on another host writing a shared tree is how such trees change.
    static let eventCompleteFileSystems: Set<Int64> = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010, 0x2FC1_2FC1, 0x794C_7630]

    /// Whether inotify sees every change under `path`.
    static func eventsAreComplete(at path: String) -> Bool {
        eventCompleteFileSystems.contains(Int64(corpus_file_system_type(path)))
    }

    /// nil when inotify is unavailable (no kernel support, the per-user instance limit
    /// `fs.inotify.max_user_instances` reached, or no /proc to name the root by) or would miss
    /// changes (the tree is on a network or FUSE file system): the cache then checks each file's
    /// identity.
    init?(rootFD: Int32) {
        let rootPath = "/proc/self/fd/\(rootFD)"
        guard Self.eventsAreComplete(at: rootPath) else { return nil }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let wd = inotify_add_watch(fd, rootPath, Self.mask | UInt32(IN_ONLYDIR))
        // Without the mount table a mount inside the tree would go unseen: no watch then.
        let mounts = wd >= 0 ? SystemCall.retrying { open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC) } : -1
        guard mounts >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        self.mounts = mounts
        self.rootPath = rootPath
        watched.withLock { $0.add("", wd) }
    }

    deinit {
        close(fd)
        close(mounts)
    }

    /// Watches the root, each folder on the way to `segments` and the file itself. False when a
    /// watch could not be added (the path is gone, `fs.inotify.max_user_watches` is reached, or
    /// it is on a file system inotify does not see every change of: a mount inside the tree): the
    /// file must not be cached then.
    func watch(_ segments: [String]) -> Bool {
        // Under the lock from the look-up to the registration, as `forgetAll` is from its list to
        // its last removal: otherwise a watch removed there could stay registered here (inotify
        // hands out the same descriptor for an inode already watched) and a later file on that
        // path be cached with nothing watching it.
        watched.withLock { w in
            var relative = ""
            for (i, segment) in ([""] + segments).enumerated() {
                if i > 1 { relative += "/" }
                relative += segment
                if w.byPath[relative] != nil { continue }
                // IN_DONT_FOLLOW: a symlink on the way is refused (IN_ONLYDIR) or watched itself,
                // never followed. Not on the root, which is reached through /proc's link to it.
                let isFile = i == segments.count
                let flags = i == 0 ? Self.mask | UInt32(IN_ONLYDIR) : Self.mask | UInt32(IN_DONT_FOLLOW) | (isFile ? 0 : UInt32(IN_ONLYDIR))
                let path = i == 0 ? rootPath : rootPath + "/" + relative
                guard Self.eventsAreComplete(at: path) else { return false }
                let wd = inotify_add_watch(fd, path, flags)
                guard wd >= 0 else { return false }
                // Registered before the caller looks at the file: an event after that look names
                // a watched path when it is read.
                w.add(relative, wd)
            }
            return true
        }
    }

    /// Reads every queued event; true when there was one that tells of a change, or a mount or
    /// unmount happened (or the queue overflowed, or could not be read), false when nothing did.
    func takeChanges() -> Bool {
        let (queued, mounted) = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { fds -> (Bool, Bool) in
            fds[0] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            fds[1] = pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)
            let n = SystemCall.retrying { poll(fds.baseAddress, 2, 0) }
            // Not knowing counts as a change.
            if n < 0 { return (true, true) }
            // The kernel adds POLLERR to the mount table's POLLPRI.
            return (fds[0].revents != 0, fds[1].revents & Int16(POLLPRI | POLLERR) != 0)
        }
        guard queued else { return mounted }
        return readQueue() || mounted
    }

    /// Reads every queued event; true when one tells of a change (or the queue overflowed, or
    /// could not be read).
    private func readQueue() -> Bool {
        var changed = false
        // Room for many events: a publish queues hundreds at once.
        withUnsafeTemporaryAllocation(byteCount: 16 << 10, alignment: MemoryLayout<inotify_event>.alignment) { buffer in
            while true {
                let n = SystemCall.retrying { read(fd, buffer.baseAddress, buffer.count) }
                if n < 0 {
                    if errno != EAGAIN { changed = true }
                    return
                }
                if n == 0 { changed = true; return }
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= n {
                    let event = buffer.baseAddress!.advanced(by: offset).loadUnaligned(as: inotify_event.self)
                    let nameBytes = UnsafeRawBufferPointer(start: buffer.baseAddress!.advanced(by: offset + header), count: Int(event.len))
                    offset += header + Int(event.len)
                    if changed { continue }
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        changed = true
                    } else if event.mask != UInt32(IN_IGNORED) {
                        // IN_IGNORED alone follows `forgetAll` removing a watch; a deleted file's
                        // IN_IGNORED comes after its IN_DELETE_SELF, which counts.
                        // The name is NUL-padded to `len`.
                        let name = event.len == 0 ? nil : String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                        changed = watched.withLock { $0.touches(wd: event.wd, name: name) }
                    }
                }
            }
        }
        return changed
    }

    /// Removes every watch: after a change, a path may name another file or folder than the one
    /// its watch is on.
    func forgetAll() {
        watched.withLock { w in
            for wd in w.byDescriptor.keys { _ = inotify_rm_watch(fd, wd) }
            w = Watches()
        }
    }
}
#endif
