import Foundation

/// A real file system mounted on a folder for one test, with `mount(8)`: a small tmpfs (a volume
/// that fills up) or a read-only bind of another folder (a home the process cannot write, which
/// `chmod` cannot give a test that runs as root). Needs root; `isPossible` says whether this
/// machine allows it (tests skip saying "needs root and mount(8)" when not). Unmounted by `unmount()` or, at the
/// latest, when the value goes away.
public final class ScratchMount: @unchecked Sendable {
    // @unchecked: one test owns a mount and unmounts it once.
    public let path: String
    private var mounted = true

    /// Whether this process may mount: root, and a tmpfs mount succeeds (a container may forbid it).
    public static let isPossible: Bool = {
        guard geteuid() == 0, ProcessRunner.has("mount"), ProcessRunner.has("umount") else { return false }
        let probe = TempDirectory("mount-probe")
        guard (try? ProcessRunner.run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]))?.status == 0 else { return false }
        _ = try? ProcessRunner.run("umount", [probe.path])
        return true
    }()

    private init(path: String) {
        self.path = path
    }

    /// A tmpfs of `bytes` (rounded up to whole 4 KiB pages by the kernel) on the existing folder `path`.
    public static func tmpfs(at path: String, bytes: Int64) throws -> ScratchMount {
        try run(["-t", "tmpfs", "-o", "size=\(bytes),mode=0755", "tmpfs", path])
        return ScratchMount(path: path)
    }

    /// `source` bound read-only on the existing folder `path` (a bind first, then a read-only
    /// remount of the bind: `mount -o bind,ro` alone leaves it writable on older kernels).
    public static func readOnlyBind(of source: String, at path: String) throws -> ScratchMount {
        try run(["--bind", source, path])
        let m = ScratchMount(path: path)
        try run(["-o", "remount,bind,ro", path])
        return m
    }

    /// Changes a tmpfs's size in place (`remount,size=`), keeping its files.
    public func resize(bytes: Int64) throws {
        try Self.run(["-o", "remount,size=\(bytes)", path])
    }

    /// Bytes the file system still lets this process write (`statvfs`: free blocks for unprivileged users).
    public var available: Int64 {
        var st = statvfs()
        guard statvfs(path, &st) == 0 else { return -1 }
        return Int64(st.f_bavail) * Int64(st.f_frsize)
    }

    /// Bytes in use on the file system.
    public var used: Int64 {
        var st = statvfs()
        guard statvfs(path, &st) == 0 else { return -1 }
        return Int64(st.f_blocks - st.f_bfree) * Int64(st.f_frsize)
    }

    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? ProcessRunner.run("umount", [path])
    }

    deinit { unmount() }

    private static func run(_ args: [String]) throws {
        let r = try ProcessRunner.run("mount", args)
        guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "mount \(args.joined(separator: " ")): \(r.stderr)") }
    }
}
