import Testing
import Foundation
import CorpusTestSupport

/// "Two clients install the same corpus at once" and "lock held", with real `corpus` processes.
@Suite struct ClientConcurrencyTests {
    @Test func twoInstallsOfTheSameCorpusAtOnceEndInOneConsistentInstall() async throws {
        let fixture = try KillFixture()
        // The bundle trickles in, so the first install holds the corpus lock for a while.
        let trickle = try MisbehavingServer(root: fixture.tree.publicDir) { request in
            request.path.hasPrefix("/bundles/") ? .trickle(bytes: 2048, pause: 0.02) : .normal
        }
        defer { trickle.stop() }
        let client = try PublishedTreeClient(copying: fixture.fresh)
        try client.addRemote(trickle.baseURL, trust: fixture.tree.rootPub)

        // Both processes run at once (started back to back, neither waited for before the other starts).
        let outputs = [client.folder.url("first.json"), client.folder.url("second.json")]
        let children = try outputs.map { try client.start(["install", "tides", "--json"], stdout: $0) }
        for child in children { child.waitUntilExit() }

        for child in children { #expect(child.terminationStatus == 0) }
        let kinds = try outputs.compactMap { path -> String? in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            return ((object?["results"] as? [[String: Any]])?.first?["status"]) as? String
        }.sorted()
        #expect(kinds == ["installed", "unchanged"], "one installs, the other waits for the lock and finds it done")
        #expect(trickle.requests.filter { $0.path.hasPrefix("/bundles/") }.count == 1, "the bundle was downloaded once")
        try KillFixture.expectSettled(client, tides: "2", "two installs at once")
    }

    @Test func aHeldLockIsReportedWithExitSevenAndChangesNothing() async throws {
        let fixture = try KillFixture()
        let client = try PublishedTreeClient(copying: fixture.fresh)
        let lockPath = client.home + "/locks/corpus-main.tides.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let before = client.snapshot
        let (r, o) = try client.json(["install", "tides"], env: ["CORPUS_LOCK_WAIT": "0"])
        #expect(r.status == 7)
        let error = (o?["results"] as? [[String: Any]])?.first?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "lock-held")
        #expect(client.snapshot == before)
        // Released, the same command goes through.
        flock(fd, LOCK_UN)
        #expect(try client.run(["install", "tides"]).status == 0)
    }
}
