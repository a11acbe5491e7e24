import Testing
import Foundation
import CorpusTestSupport

/// The kill test on the delta path (issue 14): a `corpus sync` updating by delta is SIGKILLed at
/// every step of its download, apply and swap (`CORPUS_TEST_KILL_AT`), and at a moment inside a
/// trickled delta download. After each kill the home answers from one whole version (1, or 2 once
/// `current` moved) and a rerun completes by delta, verifies and settles.
@Suite struct DeltaKillTests {
    static let deltaSteps = [
        "catalogs-fetched", "delta-downloaded", "delta-copied", "delta-applied", "delta-vectors-written", "delta-verified",
        "pack-checked", "install-record-written", "version-renamed", "link-created", "link-renamed", "current-pointed",
        "delta-discarded", "before-catalog-commit", "catalog-committed",
    ]

    /// `tides` at one of `allowed`, and every hit of a search from that version.
    static func expectWhole(_ client: PublishedTreeClient, allowed: Set<String>, _ label: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let installed = try #require(try client.installed(), "\(label): corpus list failed", sourceLocation: sourceLocation)
        #expect(installed.count == 1 && allowed.contains(String(installed[0].dropFirst("tides@".count))), "\(label): \(installed)",
                sourceLocation: sourceLocation)
        let hits = try #require(try client.search("tidewater"), "\(label): search failed", sourceLocation: sourceLocation)
        #expect(!hits.isEmpty && hits.allSatisfy { $0.corpus == installed.first }, "\(label): \(hits.map(\.corpus))", sourceLocation: sourceLocation)
    }

    /// After a rerun: tides 2, `verify` passes, `gc` leaves one version and nothing in staging or downloads.
    static func expectSettled(_ client: PublishedTreeClient, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectWhole(client, allowed: ["2"], "\(label), after the rerun", sourceLocation: sourceLocation)
        #expect(try client.run(["verify"]).status == 0, "\(label): verify", sourceLocation: sourceLocation)
        #expect(try client.run(["gc"]).status == 0, sourceLocation: sourceLocation)
        #expect(client.entries("staging").isEmpty && client.entries("downloads").isEmpty,
                "\(label): \(client.entries("staging")) \(client.entries("downloads"))", sourceLocation: sourceLocation)
        #expect(client.entries("corpora/main/tides/versions") == ["2"], sourceLocation: sourceLocation)
    }

    @Test func killedAtEveryStepOfAnUpdateByDelta() async throws {
        let fixture = try DeltaFixture()
        try await forEachConcurrently(Self.deltaSteps) { step in
            let client = try PublishedTreeClient(copying: fixture.client)
            let r = try client.run(["sync"], env: ["CORPUS_TEST_KILL_AT": step])
            #expect(r.status == SIGKILL, "sync was not killed at \(step): exit \(r.status) \(r.stderr)")
            try Self.expectWhole(client, allowed: ["1", "2"], "killed at \(step)")
            let rerun = try client.json(["sync"])
            #expect(rerun.result.status == 0, "rerun after a kill at \(step): \(rerun.result.stderr)")
            if let result = (rerun.object?["results"] as? [[String: Any]])?.first, result["status"] as? String == "updated" {
                #expect(result["via"] as? String == "delta", "rerun after a kill at \(step): \(result)")
            }
            try Self.expectSettled(client, "killed at \(step)")
        }
    }

    @Test func killedInsideATrickledDeltaDownload() throws {
        let fixture = try DeltaFixture()
        let delta = try fixture.delta()
        let trickle = try MisbehavingServer(root: fixture.tree.publicDir) { request in
            request.path.hasPrefix("/deltas/") ? .trickle(bytes: 64, pause: 0.02) : .normal
        }
        defer { trickle.stop() }
        let client = try PublishedTreeClient(copying: fixture.client)
        try client.addRemote(trickle.baseURL, trust: fixture.tree.rootPub)
        let child = try client.start(["sync"])
        let part = "\(client.home)/downloads/\(delta.digest.hex).part"
        while child.isRunning && (FileManager.default.sizeIfExists(part) ?? 0) < Int(delta.size / 2) { usleep(2_000) }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        try Self.expectWhole(client, allowed: ["1"], "killed inside the delta download")
        let before = trickle.requests.count
        let rerun = try client.json(["sync"])
        #expect(rerun.result.status == 0, "\(rerun.result.stderr)")
        let ranges = trickle.requests.dropFirst(before).filter { $0.path.hasPrefix("/deltas/") }.compactMap { $0.headers["range"] }
        #expect(ranges.count == 1 && ranges[0] != "bytes=0-", "the rerun did not resume the delta: \(ranges)")
        #expect((rerun.object?["results"] as? [[String: Any]])?.first?["via"] as? String == "delta")
        try Self.expectSettled(client, "killed inside the delta download")
    }
}
