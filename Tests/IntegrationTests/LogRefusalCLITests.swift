import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// What the client's log check refuses, end to end through `corpusd publish`, `corpusd serve` and
/// `corpus`: each refusal exits 3 with its code, and the home folder is unchanged but for the fork
/// evidence a fork keeps. A tree without a log keeps working.
@Suite struct LogRefusalCLITests {
    let publisher = IntegrationPublisher(catalogID: "harbor")

    /// Publishes corpus alpha at `version` holding `text` (a new text needs a new version).
    func publish(_ text: String, version: Int, key: IntegrationPublisher.KeyPair, into tree: String? = nil) throws {
        try publisher.writeCatalog([.init(id: "alpha", version: "\(version)", documents: ["a.md": "# Alpha\n\n\(text)"])])
        let r = try publisher.publish(key: key.secret, into: tree)
        #expect(r.status == 0, "\(r.stderr)")
    }

    func move(_ from: String, _ to: String) throws {
        try FileManager.default.moveItem(atPath: from, toPath: to)
    }

    @Test func aCheckpointThatDoesNotExtendTheAcceptedOneIsAForkWithEvidence() throws {
        let key = try publisher.keygen("catalog")
        try publish("one", version: 1, key: key)
        let other = publisher.work.url("other")
        #expect(try ProcessRunner.run("/bin/cp", ["-a", publisher.publicDir, other], timeout: 30).status == 0)
        try publish("two", version: 2, key: key)
        // The copy gets another version 2 and a version 3: its log is longer, and not an extension.
        try publish("two, otherwise", version: 2, key: key, into: other)
        try publish("three", version: 3, key: key, into: other)
        let server = try publisher.serve()
        let client = IntegrationClient("fork")
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
        try client.must(["catalog"])
        let accepted = try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/checkpoint")))
        server.stop()

        // The same address now serves the other history.
        try move(publisher.publicDir, publisher.work.url("honest"))
        try move(other, publisher.publicDir)
        let forked = try publisher.serve(port: server.port)
        defer { forked.stop() }
        let before = client.snapshot
        let r = try client.json(["catalog"])
        #expect(r.status == 3)
        let error = try #require(r.object["error"] as? [String: Any])
        #expect(error["code"] as? String == "log-fork", "\(error)")
        #expect((error["message"] as? String)?.contains("does not extend the accepted one of size 5") == true, "\(error)")
        let evidence = ForkEvidence(client: client, since: before)
        #expect(evidence.isTheOnlyChange, "nothing but the evidence changed: \(evidence.added)")
        #expect(evidence.accepted == accepted)
        #expect(try evidence.served == Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/log/checkpoint")))
    }

    @Test func aLogThatVanishesOrLeavesTheCatalogOutIsRefusedAndATreeWithoutOneIsNot() throws {
        let key = try publisher.keygen("catalog")
        try publish("one", version: 1, key: key)
        // A tree published before logs existed: no log/ at all. Accepted.
        try move("\(publisher.publicDir)/log", publisher.work.url("log-1"))
        let server = try publisher.serve()
        defer { server.stop() }
        let client = IntegrationClient("vanish")
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
        try client.must(["catalog"])
        #expect(!FileManager.default.fileExists(atPath: client.homeDir.url("state/main/checkpoint")))

        // With its log back and a new version, the client accepts and keeps a checkpoint.
        try move(publisher.work.url("log-1"), "\(publisher.publicDir)/log")
        try publish("two", version: 2, key: key)
        try client.must(["catalog"])
        #expect(FileManager.default.fileExists(atPath: client.homeDir.url("state/main/checkpoint")))

        // Version 3 served with the log of version 2: the catalog is not in it.
        #expect(try ProcessRunner.run("/bin/cp", ["-a", "\(publisher.publicDir)/log", publisher.work.url("log-2")], timeout: 30).status == 0)
        try publish("three", version: 3, key: key)
        try FileManager.default.removeItem(atPath: "\(publisher.publicDir)/log")
        try move(publisher.work.url("log-2"), "\(publisher.publicDir)/log")
        var before = client.snapshot
        var r = try client.json(["catalog"])
        #expect(r.status == 3 && (r.object["error"] as? [String: Any])?["code"] as? String == "log", "\(r.result.stdout)")
        #expect(((r.object["error"] as? [String: Any])?["message"] as? String)?.contains("catalog harbor version 3 is not among the last") == true)
        #expect(client.snapshot == before)

        // The log gone after the client accepted one: refused, nothing written.
        try FileManager.default.removeItem(atPath: "\(publisher.publicDir)/log")
        before = client.snapshot
        r = try client.json(["catalog"])
        #expect(r.status == 3 && ((r.object["error"] as? [String: Any])?["message"] as? String)?.contains("serves no log/checkpoint now") == true,
                "\(r.result.stdout)")
        #expect(client.snapshot == before)
    }
}
