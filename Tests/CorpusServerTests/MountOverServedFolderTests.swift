#if os(Linux)
import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// A file system mounted over a folder of the served tree raises no inotify event, yet from that
/// moment the folder's paths name other files: a cached response for one must not be served.
/// Mount changes are watched too (`/proc/self/mountinfo` polled for POLLPRI, which the kernel
/// raises on any mount or unmount in the namespace).
@Suite(.serialized) struct MountOverServedFolderTests {
    /// Whether this process may mount a tmpfs (root, in a namespace that allows it).
    static let canMount: Bool = {
        guard getuid() == 0, let probe = try? TempDirectory("mount-probe") as TempDirectory? else { return false }
        guard (try? ProcessRunner.run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]))?.status == 0 else { return false }
        _ = try? ProcessRunner.run("umount", [probe.path])
        return true
    }()

    @Test(.enabled(if: canMount, "skipped: this process may not mount a tmpfs (needs root, and a mount namespace that allows it)"))
    func aFolderMountedOverAfterCachingIsServedFromTheMountAtOnce() throws {
        let f = try ServerFixture()
        try #require(f.server.metrics.fileCacheHitCount == 0)
        let catalog = "/" + TreeLayout.catalogPath(version: 1)
        let old = try f.get(catalog)
        #expect(old.status == 200)
        #expect(try f.get(catalog).body == old.body)
        #expect(f.server.metrics.fileCacheHitCount == 1, "cached before the mount")
        let folder = f.tree.dir.url("catalogs")
        let mounted = try ProcessRunner.run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder])
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer { _ = try? ProcessRunner.run("umount", [folder]) }
        // The mount is empty: the path names nothing now.
        let r = try f.get(catalog)
        #expect(r.status == 404, "served \(r.status) from before the mount")
        // A file written in the mount is the one served, and cached and served again as usual.
        _ = try f.tree.dir.write("catalogs/1.json", "{\"mounted\":true}")
        #expect(try f.get(catalog).text == "{\"mounted\":true}")
        #expect(try f.get(catalog).text == "{\"mounted\":true}")
        // Unmounted: the files under it again, at once.
        #expect(try ProcessRunner.run("umount", [folder]).status == 0)
        #expect(try f.get(catalog).body == old.body)
    }
}
#endif
