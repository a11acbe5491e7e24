import Testing
import Foundation
import CorpusTestSupport

/// "Process killed at any step of install or sync": a child `corpus` is SIGKILLed at each named
/// step (the test-only `CORPUS_TEST_KILL_AT` hook, docs/client.md) and at random moments of a
/// trickled download. After each kill the home opens, searches answer from one whole state (the
/// old one, or the new one once the swap happened), and a rerun completes and settles.
@Suite struct KillDuringInstallTests {
    /// Every step an install or update passes, in order (`pack-indexed`: the default bundle's pack
    /// ships without its index, built in staging).
    static let installSteps = [
        "catalogs-fetched", "downloaded", "locked",
        "extracting:pack.sqlite", "extracted:pack.sqlite", "extracting:vectors.bin", "extracted:vectors.bin", "extracted",
        "pack-indexed", "pack-checked", "install-record-written", "version-renamed",
        "link-created", "link-renamed", "current-pointed", "download-discarded",
        "before-catalog-commit", "catalog-committed",
    ]

    /// Kills the child at `step`; fails the test unless it really died there (SIGKILL, status 9).
    static func killed(_ client: PublishedTreeClient, _ args: [String], at step: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try client.run(args, env: ["CORPUS_TEST_KILL_AT": step])
        #expect(r.status == SIGKILL, "\(args.joined(separator: " ")) was not killed at \(step): exit \(r.status) \(r.stderr)",
                sourceLocation: sourceLocation)
    }

    @Test func killedAtEveryStepOfAnUpdate() async throws {
        let fixture = try KillFixture()
        try await forEachConcurrently(Self.installSteps) { step in
            let client = try PublishedTreeClient(copying: fixture.old)
            try Self.killed(client, ["sync"], at: step)
            try KillFixture.expectWholeState(client, allowed: ["1", "2"], "sync killed at \(step)")
            let rerun = try client.json(["sync"])
            #expect(rerun.result.status == 0, "sync after a kill at \(step): \(rerun.result.stderr)")
            try KillFixture.expectSettled(client, tides: "2", "sync killed at \(step)")
        }
    }

    @Test func killedAtEveryStepOfAFreshInstall() async throws {
        let fixture = try KillFixture()
        try await forEachConcurrently(Self.installSteps) { step in
            let client = try PublishedTreeClient(copying: fixture.fresh)
            try Self.killed(client, ["install", "tides"], at: step)
            try KillFixture.expectWholeState(client, allowed: [nil, "2"], "install killed at \(step)")
            let rerun = try client.run(["install", "tides"])
            #expect(rerun.status == 0, "install after a kill at \(step): \(rerun.stderr)")
            try KillFixture.expectSettled(client, tides: "2", "install killed at \(step)")
        }
    }

    @Test func killedWhileRemovingOrCollectingOldVersions() async throws {
        let fixture = try KillFixture()
        // remove: after `current` is gone, and after the folder was moved aside but before it is deleted.
        try await forEachConcurrently(["current-unlinked", "tree-moved-aside"]) { step in
            let client = try PublishedTreeClient(copying: fixture.old)
            try Self.killed(client, ["remove", "tides"], at: step)
            try KillFixture.expectWholeState(client, allowed: [nil], "remove killed at \(step)")
            let rerun = try client.run(["remove", "tides"])
            #expect(rerun.status == 0 || rerun.status == 6, "remove after a kill at \(step): \(rerun.stderr)")
            try KillFixture.expectSettled(client, tides: nil, "remove killed at \(step)")
        }
        // gc removing the version an update left behind.
        let client = try PublishedTreeClient(copying: fixture.old)
        try KillFixture.expectSuccess(try client.run(["sync"]))
        #expect(client.entries("corpora/main/tides/versions") == ["1", "2"])
        try Self.killed(client, ["gc"], at: "tree-moved-aside")
        try KillFixture.expectWholeState(client, allowed: ["2"], "gc killed while deleting")
        #expect(client.entries("corpora/main/tides/versions") == ["2"], "the old version is moved aside whole")
        try KillFixture.expectSettled(client, tides: "2", "gc killed while deleting")
    }

    /// Kills while the bundle trickles in: three once the partial download has grown past a random
    /// fraction of the bundle (so inside the transfer, then resumed with a Range request), three at
    /// random moments from the start. Wherever each lands, the same guarantees hold.
    @Test func killedAtRandomMomentsOfATrickledDownload() async throws {
        let fixture = try KillFixture()
        let trickle = try MisbehavingServer(root: fixture.tree.publicDir) { request in
            request.path.hasPrefix("/bundles/") ? .trickle(bytes: 512, pause: 0.02) : .normal
        }
        defer { trickle.stop() }
        let catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fixture.tree.publicDir + "/catalogs/2.json"))) as? [String: Any]
        let entry = (catalog?["corpora"] as? [[String: Any]])?.first { $0["id"] as? String == "tides" }
        let bundle = try #require(entry?["bundle"] as? [String: Any])
        let size = try #require(bundle["size"] as? Int)
        let sha = try #require(bundle["sha256"] as? String)

        var generator = SystemRandomNumberGenerator()
        enum Moment { case partialReached(Int), after(Double) }
        let moments: [Moment] = (0..<3).map { _ in .partialReached(Int(Double(size) * Double.random(in: 0.1..<0.7, using: &generator))) }
            + (0..<3).map { i in .after(0.1 + Double(i) * 0.3 + Double.random(in: 0..<0.2, using: &generator)) }
        for moment in moments {
            let client = try PublishedTreeClient(copying: fixture.old)
            try client.addRemote(trickle.baseURL, trust: fixture.tree.rootPub)
            let child = try client.start(["sync"])
            let label: String
            switch moment {
            case let .partialReached(bytes):
                label = "sync killed with \(bytes) of \(size) bytes downloaded"
                let part = "\(client.home)/downloads/\(sha).part"
                while child.isRunning && (FileManager.default.sizeIfExists(part) ?? 0) < bytes { usleep(2_000) }
            case let .after(seconds):
                label = String(format: "sync killed after %.2f s", seconds)
                usleep(UInt32(seconds * 1_000_000))
            }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            try KillFixture.expectWholeState(client, allowed: ["1", "2"], label)
            let requestsBefore = trickle.requests.count
            let rerun = try client.json(["sync"])
            #expect(rerun.result.status == 0, "\(label): rerun: \(rerun.result.stderr)")
            if case .partialReached = moment {
                let ranges = trickle.requests.dropFirst(requestsBefore).compactMap { $0.headers["range"] }
                #expect(ranges.count == 1 && ranges[0] != "bytes=0-", "\(label): the rerun did not resume: \(ranges)")
            }
            try KillFixture.expectSettled(client, tides: "2", label)
        }
    }
}

extension FileManager {
    /// The size of a file, nil when it does not exist (yet).
    func sizeIfExists(_ path: String) -> Int? {
        (try? attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }
}
