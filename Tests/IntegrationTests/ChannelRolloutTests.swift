import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// Channels, a phased rollout and its halt, end to end: a real `corpusd publish` of one tree with
/// a stable and a beta channel and a rolling stable version, a real `corpusd serve` on loopback,
/// and real `corpus` homes whose install ids are chosen so that their buckets are known.
@Suite(.serialized) struct ChannelRolloutTests {
    /// SHA-256(install id ‖ 0x00 ‖ corpus id) read as a fraction: docs/format.md's bucket rule,
    /// computed here independently of the client's code.
    static func bucket(_ installID: String, _ corpus: String) -> Double {
        let digest = SHA256.hash(Array(installID.utf8) + [0] + Array(corpus.utf8))
        let top = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(top >> 11) / Double(UInt64(1) << 53)
    }

    /// The first install id (64 hex digits) whose bucket for `docs` lies in `range`.
    static func installID(bucketIn range: ClosedRange<Double>) -> String {
        var g = SplitMix64(seed: 7)
        while true {
            let id = (0..<4).map { _ in String(format: "%016llx", g.next()) }.joined()
            if range.contains(bucket(id, "docs")) { return id }
        }
    }

    final class Fleet: @unchecked Sendable {
        let publisher = IntegrationPublisher(catalogID: "fleet")
        let key: IntegrationPublisher.KeyPair
        var server: ServerProcess!

        init() throws { key = try publisher.keygen("root") }

        /// `catalog.json` with the given entries; each names a source folder written for its version.
        func publish(_ entries: [[String: Any]]) throws {
            for e in entries {
                let version = e["version"] as! String
                try publisher.work.write("catalog/docs-\(version)/guide.md", "# Guide \(version)\n\nTide tables, edition \(version).\n")
            }
            let doc: [String: Any] = ["id": "fleet", "title": "Fleet", "corpora": entries.map { e in
                e.merging(["id": "docs", "title": "Docs", "access": "free", "source": "docs-\(e["version"] as! String)"]) { a, _ in a }
            }]
            try publisher.work.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]))
            try publisher.mustPublish(key: key.secret)
        }

        /// A home following `channel`, with `installID` written before its first command.
        func home(_ label: String, installID: String? = nil, channel: String? = nil) throws -> IntegrationClient {
            let c = IntegrationClient(label)
            if let installID { try c.homeDir.write("install-id", installID + "\n") }
            try c.must(["remote", "add", "main", server.url, "--trust", key.pub] + (channel.map { ["--channel", $0] } ?? []))
            return c
        }
    }

    static func installedVersion(_ c: IntegrationClient) throws -> String? {
        let (_, object, _) = try c.json(["list"])
        return ((object["installed"] as? [[String: Any]])?.first { $0["id"] as? String == "docs" })?["version"] as? String
    }

    static func wait(until date: Date) {
        let s = date.timeIntervalSinceNow
        if s > 0 { Thread.sleep(forTimeInterval: s) }
    }

    @Test func betaAndStableClientsARolloutThatArrivesAtItsStageAndAHalt() throws {
        let fleet = try Fleet()
        // The rollout begins 12 s from now and reaches everyone 10 s later.
        let start = Date().addingTimeInterval(12).timeIntervalSince1970.rounded(.up)
        let startDate = Date(timeIntervalSince1970: start)
        let rollout: [String: Any] = ["start": Timestamp.format(startDate), "duration": "10s"]
        try fleet.publish([["version": "1"], ["version": "2", "rollout": rollout], ["version": "3", "channel": "beta"]])
        fleet.server = try fleet.publisher.serve()
        defer { fleet.server.stop() }

        let early = try fleet.home("early", installID: Self.installID(bucketIn: 0.0...0.05))
        let lateID = Self.installID(bucketIn: 0.45...0.6)
        let late = try fleet.home("late", installID: lateID)
        let beta = try fleet.home("beta", channel: "beta")
        let stable = try fleet.home("stable")

        // One tree, both channels: beta gets the newest across beta and stable, stable its own.
        try beta.must(["install", "docs"])
        try stable.must(["install", "docs"])
        #expect(try Self.installedVersion(beta) == "3")
        #expect(try Self.installedVersion(stable) == "1")

        // Before the rollout's start nobody is offered 2, however early its bucket.
        try early.must(["install", "docs"])
        try late.must(["install", "docs"])
        try #require(Date() < startDate, "the machine was too slow to check before the rollout's start")
        #expect(try Self.installedVersion(early) == "1")
        #expect(try Self.installedVersion(late) == "1")

        // Just after the start: the early bucket is reached, the late one is not (yet).
        Self.wait(until: startDate.addingTimeInterval(1))
        try early.must(["sync"])
        let lateAt = startDate.addingTimeInterval(Self.bucket(lateID, "docs") * 10)
        try late.must(["sync"])
        try #require(Date() < lateAt, "the machine was too slow to check before the late bucket's stage")
        #expect(try Self.installedVersion(early) == "2")
        #expect(try Self.installedVersion(late) == "1")
        // The same answer on every check until its stage.
        try late.must(["sync"])
        if Date() < lateAt { #expect(try Self.installedVersion(late) == "1") }

        // After its stage the late client is offered 2 by a plain sync.
        Self.wait(until: lateAt.addingTimeInterval(1))
        let reached = try late.must(["sync"])
        #expect(try Self.installedVersion(late) == "2", "\(reached.stdout) \(reached.stderr)")

        // Halt: republished without the rolling entry. A new client with an early bucket gets 1;
        // a client that installed 2 keeps it and says so; `install docs@2` is refused as not offered.
        try fleet.publish([["version": "1"], ["version": "3", "channel": "beta"]])
        let after = try fleet.home("after-halt", installID: Self.installID(bucketIn: 0.0...0.05))
        try after.must(["install", "docs"])
        #expect(try Self.installedVersion(after) == "1")
        let kept = try early.must(["sync"])
        #expect(try Self.installedVersion(early) == "2")
        #expect(kept.stderr.contains("note: keeps main/docs 2, newer than the 1 its catalog offers"), "\(kept.stderr)")

        // Leaving beta never downgrades silently.
        let left = try beta.must(["sync", "--channel", "stable"])
        #expect(try Self.installedVersion(beta) == "3")
        #expect(left.stderr.contains("note: keeps main/docs 3"), "\(left.stderr)")
    }

    /// A rollout not yet at a client's stage: `install --now` and `install docs@2` do not wait.
    @Test func installNowAndANamedVersionSkipTheWait() throws {
        let fleet = try Fleet()
        let rollout: [String: Any] = ["start": Timestamp.format(Date().addingTimeInterval(3600)), "duration": "7d"]
        try fleet.publish([["version": "1"], ["version": "2", "rollout": rollout]])
        fleet.server = try fleet.publisher.serve()
        defer { fleet.server.stop() }
        let waiting = try fleet.home("waiting")
        try waiting.must(["install", "docs"])
        #expect(try Self.installedVersion(waiting) == "1")
        try waiting.must(["install", "docs", "--now"])
        #expect(try Self.installedVersion(waiting) == "2")
        let named = try fleet.home("named")
        try named.must(["install", "docs@2"])
        #expect(try Self.installedVersion(named) == "2")
        // The install id was made once, in the home, and is 64 hex digits.
        let id = try String(contentsOfFile: named.home + "/install-id", encoding: .utf8)
        #expect(id.trimmingCharacters(in: .newlines).count == 64)
    }

    /// A catalog.json listing two current versions on one channel is refused before anything is built.
    @Test func thePublisherRefusesTwoCurrentVersionsOnAChannel() throws {
        let fleet = try Fleet()
        try fleet.publisher.work.write("catalog/docs-1/guide.md", "# Guide\n")
        try fleet.publisher.work.write("catalog/catalog.json", #"{"id":"fleet","title":"Fleet","corpora":[{"id":"docs","version":"1","access":"free","source":"docs-1"},{"id":"docs","version":"2","access":"free","source":"docs-1"}]}"#)
        let r = try fleet.publisher.publish(key: fleet.key.secret)
        #expect(r.status != 0)
        #expect(r.stderr.contains("corpus docs lists two current versions on channel stable (1, 2); give the newer one a \"rollout\" or remove the older"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fleet.publisher.publicDir + "/catalog.json"))
    }
}
