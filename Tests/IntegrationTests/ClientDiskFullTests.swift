import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// "Disk full mid-install": the child `corpus` runs under a file-size limit (RLIMIT_FSIZE via
/// `prlimit`, with SIGXFSZ ignored so writes fail with EFBIG as they fail with ENOSPC on a full
/// volume) set between the bundle's size and its pack's size: the download fits, unpacking the
/// pack does not. No root, no mount, nothing outside the test's folders.
@Suite struct ClientDiskFullTests {
    @Test(.enabled(if: ProcessRunner.has("prlimit"))) func aFullDiskDuringUnpackingIsACleanRefusal() async throws {
        let fixture = try KillFixture()
        let client = try PublishedTreeClient(copying: fixture.old)
        let sizes = try fixture.tree.sizes(of: "tides", catalog: 2)
        let bundleSize = sizes.bundle, packSize = try #require(sizes.members[BundleLayout.pack])
        #expect(packSize > bundleSize + 4096, "the fixture's pack must be larger than its bundle")
        let limit = (bundleSize + packSize) / 2

        let before = client.snapshot
        let r = try ProcessRunner.run("/bin/sh", ["-c", "trap '' XFSZ; exec prlimit --fsize=\(limit):\(limit) \"$@\"", "sh",
                                                  BuiltProducts.corpus, "--home", client.home, "sync", "--json"],
                                      environment: client.childEnvironment())
        #expect(r.status == 7, "\(r.stdout) \(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let results = object?["results"] as? [[String: Any]] ?? []
        #expect(results.map { "\($0["corpus"] ?? "?")=\($0["status"] ?? "?")" } == ["main/base=unchanged", "main/tides=failed"])
        let error = results.last?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "disk-full", "\(String(describing: error))")
        #expect((error?["message"] as? String)?.contains("File too large") == true, "\(String(describing: error))")
        #expect(client.snapshot == before, "home changed:\n\(before)\n---\n\(client.snapshot)")
        try KillFixture.expectWholeState(client, allowed: ["1"], "after a full disk")

        // With room again, the same command completes.
        #expect(try client.run(["sync"]).status == 0)
        try KillFixture.expectSettled(client, tides: "2", "after a full disk")
    }
}
