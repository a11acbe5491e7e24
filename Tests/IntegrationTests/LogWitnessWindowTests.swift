import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The window between `corpusd publish` and `corpusd cosign` (docs/operations.md "Running a
/// witness"), with real processes: a client that requires a witness is shown a checkpoint the
/// witness has not cosigned yet. That is no attack: it says so with the count it saw and needs,
/// keeps nothing under `forks/`, keeps the note as its pending checkpoint (only compared, never
/// trusted; dropped once the cosigned one is accepted), changes nothing else in the home and keeps
/// working from what it accepted before (exit 5, as a catalog it could not refresh). A fork is
/// still a fork (exit 3, both notes kept) when witnesses are required.
@Suite struct LogWitnessWindowTests {
    let publisher = IntegrationPublisher(catalogID: "harbor")
    let work = TempDirectory("witness-window")

    func corpusd(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, arguments, environment: IntegrationClient.environment, timeout: 120)
    }

    /// Publishes corpus alpha at `version` holding `text`, into the tree or `tree`.
    func publish(_ text: String, version: Int, key: IntegrationPublisher.KeyPair, into tree: String? = nil) throws {
        try publisher.writeCatalog([.init(id: "alpha", version: "\(version)", documents: ["a.md": "# Alpha\n\n\(text)"])])
        let r = try publisher.publish(key: key.secret, into: tree)
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// The witness follows the served tree and the publisher merges its cosignature.
    func witnessAndCosign(_ url: String, witness: IntegrationPublisher.KeyPair, key: IntegrationPublisher.KeyPair, state: String) throws {
        let w = try corpusd(["witness", url, "--key", witness.secret, "--state", state, "--trust", key.pub])
        #expect(w.status == 0, "\(w.stdout) \(w.stderr)")
        let c = try corpusd(["cosign", publisher.publicDir, "\(state)/checkpoint", "--key", key.secret])
        #expect(c.status == 0 && c.stdout.contains("added 1 cosignature(s)"), "\(c.stdout) \(c.stderr)")
    }

    func message(_ error: Any?) -> String { ((error as? [String: Any])?["message"] as? String) ?? "" }

    @Test func aCheckpointNotYetCosignedIsNoForkAndTheCatalogAcceptedBeforeStaysInUse() throws {
        let key = try publisher.keygen("catalog"), witness = try publisher.keygen("witness")
        let state = work.url("witness")
        try publish("The harbor opens at dawn.", version: 1, key: key)
        let server = try publisher.serve()
        defer { server.stop() }
        try witnessAndCosign(server.url, witness: witness, key: key, state: state)

        let client = IntegrationClient("window")
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub, "--witness", "\(state)/witness.vkey", "--witness-threshold", "1"])
        try client.must(["install", "alpha"])
        let newcomer = IntegrationClient("window-new")
        try newcomer.must(["remote", "add", "main", server.url, "--trust", key.pub, "--witness", "\(state)/witness.vkey"])

        // Published, not yet cosigned.
        try publish("The harbor opens at dawn, and closes at dusk.", version: 2, key: key)
        let before = client.snapshot

        // `sync`: the refresh found nothing acceptable yet; it works from version 1 and says why.
        let sync = try client.json(["sync"])
        #expect(sync.status == 5, "\(sync.result.stdout) \(sync.result.stderr)")
        let unrefreshed = try #require((sync.object["unrefreshed"] as? [[String: Any]])?.first, "\(sync.result.stdout)")
        #expect(unrefreshed["catalog_version"] as? Int == 1)
        let error = try #require(unrefreshed["error"] as? [String: Any])
        #expect(error["code"] as? String == "not-cosigned", "\(error)")
        #expect(message(error).contains("not yet cosigned by enough witnesses") && message(error).contains("carries 0 of the 1 witness cosignature(s)"),
                "\(error)")
        let pendingFiles: Set<String> = ["state/main/pending-checkpoint", "state/main/pending-source"]
        #expect(client.snapshot.changedFiles(since: before) == pendingFiles, "nothing in the home changed but the pending note")
        let served = try Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/log/checkpoint"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/pending-checkpoint"))) == served)
        #expect(!FileManager.default.fileExists(atPath: client.homeDir.url("forks")), "nothing kept as fork evidence")
        let afterSync = client.snapshot

        // `catalog`: a warning, and the catalog accepted before, as when every source is unreachable.
        let listed = try client.json(["catalog"])
        #expect(listed.status == 0, "\(listed.result.stdout) \(listed.result.stderr)")
        #expect(listed.result.stderr.contains("warning: main:") && listed.result.stderr.contains("not yet cosigned"), "\(listed.result.stderr)")
        let rows = try #require(listed.object["corpora"] as? [[String: Any]], "\(listed.result.stdout)")
        #expect(rows.first?["version"] as? String == "1")
        #expect(client.snapshot == afterSync, "the same pending note is not written again")

        // A client that accepted nothing yet has nothing to work from: the same plain refusal, exit 5.
        let fresh = newcomer.snapshot
        let first = try newcomer.json(["catalog"])
        #expect(first.status == 5, "\(first.result.stdout) \(first.result.stderr)")
        let firstError = try #require(first.object["error"] as? [String: Any])
        #expect(firstError["code"] as? String == "not-cosigned" && message(firstError).contains("carries 0 of the 1"), "\(firstError)")
        #expect(newcomer.snapshot.changedFiles(since: fresh) == pendingFiles)

        // Once the witness cosigned and the publisher merged it, both accept version 2.
        try witnessAndCosign(server.url, witness: witness, key: key, state: state)
        let synced = try client.json(["sync"])
        #expect(synced.status == 0 && synced.object["unrefreshed"] == nil, "\(synced.result.stdout) \(synced.result.stderr)")
        #expect(try newcomer.json(["catalog"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: client.homeDir.url("forks")))
        for home in [client, newcomer] {
            #expect(!FileManager.default.fileExists(atPath: home.homeDir.url("state/main/pending-checkpoint")), "the accepted checkpoint covers it")
            #expect(!FileManager.default.fileExists(atPath: home.homeDir.url("state/main/pending-source")))
        }
    }

    /// The pending note is replaced only by one that extends it: a later publish still in the
    /// window replaces it; a stale copy of an older one leaves it (and everything else) as it was.
    @Test func aPendingCheckpointIsReplacedOnlyByOneThatExtendsIt() throws {
        let key = try publisher.keygen("catalog"), witness = try publisher.keygen("witness")
        let state = work.url("witness")
        try publish("one", version: 1, key: key)
        let server = try publisher.serve()
        try witnessAndCosign(server.url, witness: witness, key: key, state: state)
        let client = IntegrationClient("window-pending")
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub, "--witness", "\(state)/witness.vkey"])
        try client.must(["catalog"])
        let accepted = try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/checkpoint")))
        let pendingPath = client.homeDir.url("state/main/pending-checkpoint")
        let served = { try Data(contentsOf: URL(fileURLWithPath: "\(self.publisher.publicDir)/log/checkpoint")) }

        try publish("two", version: 2, key: key)
        let stale = work.url("stale")
        #expect(try ProcessRunner.run("/bin/cp", ["-a", publisher.publicDir, stale], timeout: 30).status == 0)
        #expect(try client.json(["catalog"]).status == 0)
        let second = try served()
        #expect(try Data(contentsOf: URL(fileURLWithPath: pendingPath)) == second)

        // Version 3, still in the window, extends the pending note: it replaces it.
        try publish("three", version: 3, key: key)
        #expect(try client.json(["catalog"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: pendingPath)) == served())

        // A stale copy still serving version 2's note: not cosigned either, older than the pending
        // one, which stays; nothing in the home changes.
        server.stop()
        let staleServer = try publisher.serve(tree: stale, port: server.port)
        let before = client.snapshot
        let r = try client.json(["catalog"])
        staleServer.stop()
        #expect(r.status == 0 && r.result.stderr.contains("not yet cosigned"), "\(r.result.stdout) \(r.result.stderr)")
        #expect(client.snapshot == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/checkpoint"))) == accepted)

        // Cosigned, version 3 is accepted and the pending note it covers goes.
        let back = try publisher.serve(port: server.port)
        defer { back.stop() }
        try witnessAndCosign(back.url, witness: witness, key: key, state: state)
        #expect(try client.json(["catalog"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/checkpoint"))) == served())
        #expect(!FileManager.default.fileExists(atPath: pendingPath))
        #expect(!FileManager.default.fileExists(atPath: client.homeDir.url("forks")))
    }

    @Test func aMirrorServingTheCosignedCheckpointIsUsedWhenTheOriginIsStillInTheWindow() throws {
        let key = try publisher.keygen("catalog"), witness = try publisher.keygen("witness")
        let state = work.url("witness")
        try publish("one", version: 1, key: key)
        try publish("two", version: 2, key: key)
        // The origin still serves version 2 as published; the mirror already has it cosigned.
        let window = work.url("window")
        #expect(try ProcessRunner.run("/bin/cp", ["-a", publisher.publicDir, window], timeout: 30).status == 0)
        let mirror = try publisher.serve()
        defer { mirror.stop() }
        try witnessAndCosign(mirror.url, witness: witness, key: key, state: state)
        let origin = try publisher.serve(tree: window)
        defer { origin.stop() }

        let client = IntegrationClient("window-mirror")
        try client.must(["remote", "add", "main", origin.url, "--mirror", mirror.url, "--trust", key.pub, "--witness", "\(state)/witness.vkey"])
        let r = try client.json(["catalog"])
        #expect(r.status == 0, "\(r.result.stdout) \(r.result.stderr)")
        #expect((r.object["corpora"] as? [[String: Any]])?.first?["version"] as? String == "2", "\(r.result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/checkpoint")))
                == Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/log/checkpoint")))
        #expect(!FileManager.default.fileExists(atPath: client.homeDir.url("forks")), "nothing kept as fork evidence")
        // The origin's note, refused as not cosigned and kept as pending, is the same tree head: dropped.
        #expect(!FileManager.default.fileExists(atPath: client.homeDir.url("state/main/pending-checkpoint")))
    }

    @Test func aForkIsStillAForkWithEvidenceWhenWitnessesAreRequired() throws {
        let key = try publisher.keygen("catalog"), witness = try publisher.keygen("witness")
        let state = work.url("witness")
        try publish("one", version: 1, key: key)
        let other = work.url("other")
        #expect(try ProcessRunner.run("/bin/cp", ["-a", publisher.publicDir, other], timeout: 30).status == 0)
        try publish("two", version: 2, key: key)
        // The copy gets another version 2 and a version 3: a longer log that does not extend the
        // honest one, which no witness cosigned.
        try publish("two, otherwise", version: 2, key: key, into: other)
        try publish("three", version: 3, key: key, into: other)
        let server = try publisher.serve()
        try witnessAndCosign(server.url, witness: witness, key: key, state: state)
        let client = IntegrationClient("witness-fork")
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub, "--witness", "\(state)/witness.vkey"])
        try client.must(["catalog"])
        let accepted = try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url("state/main/checkpoint")))
        server.stop()

        // The same address now serves the other history.
        try FileManager.default.moveItem(atPath: publisher.publicDir, toPath: work.url("honest"))
        try FileManager.default.moveItem(atPath: other, toPath: publisher.publicDir)
        let forked = try publisher.serve(port: server.port)
        defer { forked.stop() }
        let before = client.snapshot
        let r = try client.json(["catalog"])
        #expect(r.status == 3, "\(r.result.stdout) \(r.result.stderr)")
        let error = try #require(r.object["error"] as? [String: Any])
        #expect(error["code"] as? String == "log-fork", "\(error)")
        #expect(message(error).contains("does not extend the accepted one"), "\(error)")
        let evidence = ForkEvidence(client: client, since: before)
        #expect(evidence.isTheOnlyChange, "nothing but the evidence changed: \(evidence.added)")
        #expect(evidence.accepted == accepted)
        #expect(try evidence.served == Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/log/checkpoint")))
    }
}
