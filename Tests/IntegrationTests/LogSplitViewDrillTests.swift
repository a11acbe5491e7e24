import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The split-view drill of docs/operations.md "What a fork report means", with real processes: a
/// publisher holding the catalog key signs two different catalogs of the same version in two copies
/// of its tree; `corpusd mirror` copies each, `corpusd serve` serves them, and each client is
/// shown one. With a witness required, only the view the witness cosigned is accepted (the other is
/// not cosigned, and never will be, but kept as the client's pending checkpoint), a client shown
/// both views refuses the fork, in one refresh or the next, and a client following the cosigned
/// view refuses the other's continuation as a fork; without one, both are accepted, and
/// `corpus verify --log --against` shows the fork.
@Suite struct LogSplitViewDrillTests {
    let publisher = IntegrationPublisher(catalogID: "harbor")
    let work = TempDirectory("split-view")

    func corpusd(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, arguments, environment: IntegrationClient.environment, timeout: 120)
    }

    func corpora(_ beta: String) -> [IntegrationPublisher.CorpusSpec] {
        [.init(id: "alpha", version: "1.0.0", documents: ["a.md": "# Alpha\n\nThe harbor opens at dawn."]),
         .init(id: "beta", version: "1.0.0", documents: ["b.md": "# Beta\n\n\(beta)"])]
    }

    /// Publishes version 1 to the tree, copies it, and publishes two different version 2s: the
    /// honest one to the tree, the targeted one to the copy. Returns the copy's path.
    func splitTrees(key: IntegrationPublisher.KeyPair) throws -> String {
        try publisher.writeCatalog([.init(id: "alpha", version: "1.0.0", documents: ["a.md": "# Alpha\n\nThe harbor opens at dawn."])])
        try publisher.mustPublish(key: key.secret)
        let forked = work.url("forked")
        let copy = try ProcessRunner.run("/bin/cp", ["-a", publisher.publicDir, forked], timeout: 60)
        #expect(copy.status == 0, "\(copy.stderr)")
        try publisher.writeCatalog(corpora("Ships leave on the evening tide."))
        try publisher.mustPublish(key: key.secret)
        try publisher.writeCatalog(corpora("Ships leave whenever the harbor master says."))
        let targeted = try publisher.publish(key: key.secret, into: forked)
        #expect(targeted.status == 0, "\(targeted.stderr)")
        #expect(try publisher.pointerVersion() == 2 && publisher.pointerVersion(tree: forked) == 2)
        return forked
    }

    func mirror(_ upstream: String, into name: String, trust: String) throws -> String {
        let r = try corpusd(["mirror", upstream, "--out", work.url(name), "--trust", trust])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.url("\(name)/log/checkpoint")), "the mirror carries the log")
        return work.url(name)
    }

    /// The witnessed drill's publisher side: the witness cosigned the honest view (merged into the
    /// tree) and refused the targeted one; `m1` mirrors the honest view, `m2` the targeted one,
    /// `s1` and `s2` serve them.
    struct WitnessedSplit {
        let key: IntegrationPublisher.KeyPair
        let state: String
        let forked: String
        let m1: String, m2: String
        let servers: [ServerProcess]
        var targeted: ServerProcess { servers[1] }
        var s1: ServerProcess { servers[2] }
        var s2: ServerProcess { servers[3] }
        var vkey: String { "\(state)/witness.vkey" }
        func stop() { for s in servers { s.stop() } }
    }

    func witnessedSplit() throws -> WitnessedSplit {
        let key = try publisher.keygen("catalog"), witnessKey = try publisher.keygen("witness")
        let forked = try splitTrees(key: key)
        let honest = try publisher.serve(), targeted = try publisher.serve(tree: forked)

        // The witness follows the honest tree and cosigns it; the publisher merges the cosignature.
        let state = work.url("witness")
        let first = try corpusd(["witness", honest.url, "--key", witnessKey.secret, "--state", state, "--trust", key.pub])
        #expect(first.status == 0 && first.stdout.contains("cosigned corpussync/harbor at tree size 5"), "\(first.stdout) \(first.stderr)")
        let cosign = try corpusd(["cosign", publisher.publicDir, "\(state)/checkpoint", "--key", key.secret])
        #expect(cosign.status == 0 && cosign.stdout.contains("added 1 cosignature(s)"), "\(cosign.stdout) \(cosign.stderr)")
        // Asked to cosign the targeted view, it refuses, says so, and keeps both notes.
        let refused = try corpusd(["witness", targeted.url, "--key", witnessKey.secret, "--state", state, "--json"])
        #expect(refused.status == 3 && refused.stdout.contains(#""code":"log-fork""#) && refused.stdout.contains("refused to cosign"), "\(refused.stdout)")
        let witnessForks = try FileManager.default.contentsOfDirectory(atPath: "\(state)/forks")
        #expect(witnessForks.count == 1)

        let m1 = try mirror(honest.url, into: "m1", trust: key.pub), m2 = try mirror(targeted.url, into: "m2", trust: key.pub)
        let s1 = try publisher.serve(tree: m1), s2 = try publisher.serve(tree: m2)
        return WitnessedSplit(key: key, state: state, forked: forked, m1: m1, m2: m2, servers: [honest, targeted, s1, s2])
    }

    func checkpoint(_ tree: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: "\(tree)/log/checkpoint")) }

    func code(_ r: (status: Int32, object: [String: Any], result: ProcessResult)) -> String? {
        ((r.object["error"] as? [String: Any]) ?? ((r.object["unrefreshed"] as? [[String: Any]])?.first?["error"] as? [String: Any]))?["code"] as? String
    }

    /// B is shown, at its only source, the view no witness cosigned: it cannot tell it from a
    /// checkpoint still waiting for its cosignatures, so it does not accept it (exit 5) and keeps
    /// the note as its pending checkpoint, to compare with what it is shown next.
    func refusedAsNotCosigned(_ b: IntegrationClient, _ split: WitnessedSplit) throws {
        let before = b.snapshot
        let refusal = try b.json(["catalog"])
        #expect(refusal.status == 5, "\(refusal.result.stdout) \(refusal.result.stderr)")
        let error = try #require(refusal.object["error"] as? [String: Any])
        #expect(error["code"] as? String == "not-cosigned")
        #expect((error["message"] as? String)?.contains("carries 0 of the 1 witness cosignature(s)") == true, "\(error)")
        #expect(b.snapshot.changedFiles(since: before) == ["state/main/pending-checkpoint", "state/main/pending-source"], "only the pending note kept")
        #expect(try Data(contentsOf: URL(fileURLWithPath: b.homeDir.url("state/main/pending-checkpoint"))) == checkpoint(split.m2))
        #expect(!FileManager.default.fileExists(atPath: b.homeDir.url("state/main/checkpoint")), "nothing accepted")
        #expect(!FileManager.default.fileExists(atPath: b.homeDir.url("forks")))
    }

    @Test func withOneWitnessRequiredOnlyTheCosignedViewIsAccepted() throws {
        let split = try witnessedSplit()
        defer { split.stop() }
        let (key, m2) = (split.key, split.m2)

        let a = IntegrationClient("a"), b = IntegrationClient("b")
        try a.must(["remote", "add", "main", split.s1.url, "--trust", key.pub, "--witness", split.vkey, "--witness-threshold", "1"])
        try b.must(["remote", "add", "main", split.s2.url, "--trust", key.pub, "--witness", split.vkey])
        let accepted = try a.json(["catalog"])
        #expect(accepted.status == 0, "\(accepted.result.stderr)")
        // A2 follows the cosigned view too, with the publisher's own tree as a mirror.
        let a2 = IntegrationClient("a2")
        try a2.must(["remote", "add", "main", split.s1.url, "--mirror", split.servers[0].url, "--trust", key.pub, "--witness", split.vkey])
        #expect(try a2.json(["catalog"]).status == 0)
        try refusedAsNotCosigned(b, split)

        // The targeted history goes on (version 3), and A, which follows the cosigned one, is
        // shown it at the address it uses: a fork, refused with exit 3, both notes kept.
        try publisher.writeCatalog([.init(id: "alpha", version: "1.0.0", documents: ["a.md": "# Alpha\n\nThe harbor opens at dawn."]),
                                    .init(id: "beta", version: "2.0.0", documents: ["b.md": "# Beta\n\nShips leave at midnight."])])
        let third = try publisher.publish(key: key.secret, into: split.forked)
        #expect(third.status == 0, "\(third.stderr)")
        _ = try mirror(split.targeted.url, into: "m2", trust: key.pub)
        let held = try Data(contentsOf: URL(fileURLWithPath: a.homeDir.url("state/main/checkpoint")))
        split.s1.stop()
        let shown = try publisher.serve(tree: m2, port: split.s1.port)
        defer { shown.stop() }
        let beforeFork = a.snapshot
        let fork = try a.json(["catalog"])
        #expect(fork.status == 3, "\(fork.result.stdout) \(fork.result.stderr)")
        #expect((fork.object["error"] as? [String: Any])?["code"] as? String == "log-fork", "\(fork.result.stdout)")
        let evidence = ForkEvidence(client: a, since: beforeFork)
        #expect(evidence.isTheOnlyChange, "\(evidence.added)")
        #expect(evidence.accepted == held)
        #expect(try evidence.served == checkpoint(m2))
        // A fork is proof whichever source served it: A2's next source, which still serves the
        // cosigned view, does not hide it.
        let beforeA2 = a2.snapshot
        let forkA2 = try a2.json(["catalog"])
        #expect(forkA2.status == 3 && code(forkA2) == "log-fork", "\(forkA2.result.stdout) \(forkA2.result.stderr)")
        #expect(ForkEvidence(client: a2, since: beforeA2).isTheOnlyChange)
    }

    /// B's remote has both mirrors, its own view first: the uncosigned note it is shown first is
    /// kept as pending, the refresh goes on to the other mirror, and the cosigned note there, of
    /// the same size with another root, is a fork: one `corpus sync`, exit 3, both notes kept.
    @Test func aClientShownBothViewsRefusesAForkInOneSync() throws {
        let split = try witnessedSplit()
        defer { split.stop() }
        let a = IntegrationClient("a"), b = IntegrationClient("b")
        try a.must(["remote", "add", "main", split.s1.url, "--trust", split.key.pub, "--witness", split.vkey])
        try b.must(["remote", "add", "main", split.s2.url, "--mirror", split.s1.url, "--trust", split.key.pub, "--witness", split.vkey])
        #expect(try a.json(["install", "beta"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a.homeDir.url("state/main/checkpoint"))) == checkpoint(split.m1), "A accepted the cosigned view")

        let before = b.snapshot
        let sync = try b.json(["sync"])
        #expect(sync.status == 3, "\(sync.result.stdout) \(sync.result.stderr)")
        #expect(code(sync) == "log-fork", "\(sync.result.stdout)")
        #expect(sync.result.stdout.contains("against the pending checkpoint (refused before as not cosigned): two checkpoints of size 5 with different roots"), "\(sync.result.stdout)")
        let evidence = ForkEvidence(client: b, since: before, pendingKept: true)
        #expect(evidence.isTheOnlyChange, "\(evidence.added)")
        #expect(try evidence.pending == checkpoint(split.m2))
        #expect(try evidence.served == checkpoint(split.m1))
        #expect(evidence.source?.contains(split.s1.url) == true && evidence.source?.contains(split.s2.url) == true, "\(evidence.source ?? "")")
        #expect(!FileManager.default.fileExists(atPath: b.homeDir.url("state/main/checkpoint")), "nothing accepted")
        #expect(!FileManager.default.fileExists(atPath: b.homeDir.url("corpora")), "nothing installed")
    }

    /// The two-step path: B refused its own mirror's view as not cosigned (exit 5, the note kept
    /// as pending); a later refresh shown the cosigned view compares it with the pending note and
    /// refuses the fork (exit 3), both notes kept, nothing else changed.
    @Test func aPendingCheckpointFromOneRefreshShowsTheForkAtTheNext() throws {
        let split = try witnessedSplit()
        defer { split.stop() }
        let b = IntegrationClient("b")
        try b.must(["remote", "add", "main", split.s2.url, "--trust", split.key.pub, "--witness", split.vkey])
        try refusedAsNotCosigned(b, split)

        split.s2.stop()
        let shown = try publisher.serve(tree: split.m1, port: split.s2.port)
        defer { shown.stop() }
        let before = b.snapshot
        let fork = try b.json(["catalog"])
        #expect(fork.status == 3, "\(fork.result.stdout) \(fork.result.stderr)")
        #expect(code(fork) == "log-fork", "\(fork.result.stdout)")
        let evidence = ForkEvidence(client: b, since: before)
        #expect(evidence.isTheOnlyChange, "\(evidence.added)")
        #expect(try evidence.pending == checkpoint(split.m2))
        #expect(try evidence.served == checkpoint(split.m1))
    }

    @Test func withoutWitnessesComparingCheckpointsShowsTheFork() throws {
        let key = try publisher.keygen("catalog")
        let forked = try splitTrees(key: key)
        let honest = try publisher.serve(), targeted = try publisher.serve(tree: forked)
        defer { honest.stop(); targeted.stop() }
        let m1 = try mirror(honest.url, into: "m1", trust: key.pub), m2 = try mirror(targeted.url, into: "m2", trust: key.pub)
        let s1 = try publisher.serve(tree: m1), s2 = try publisher.serve(tree: m2)
        defer { s1.stop(); s2.stop() }

        let a = IntegrationClient("a"), b = IntegrationClient("b")
        try a.must(["remote", "add", "main", s1.url, "--trust", key.pub])
        try b.must(["remote", "add", "main", s2.url, "--trust", key.pub])
        try a.must(["install", "beta"])
        try b.must(["install", "beta"])
        // Each view alone holds up, offline, with the proof kept beside the installed corpus.
        for client in [a, b] {
            let own = try client.json(["verify", "--log"])
            #expect(own.status == 0, "\(own.result.stdout) \(own.result.stderr)")
            let entries = try #require(own.object["log"] as? [[String: Any]])
            #expect(entries.count == 2 && entries.allSatisfy { $0["ok"] as? Bool == true }, "\(entries)")
            let proof = client.homeDir.url("state/main/log-proofs/beta@1.0.0")
            let size = try #require(try FileManager.default.attributesOfItem(atPath: proof)[.size] as? Int)
            #expect(size < 1024, "the kept proof has \(size) bytes")
        }
        // Compared, the two checkpoints (same size, both signed by the log key) are a fork.
        let compared = try b.json(["verify", "--log", "--against", a.homeDir.url("state/main/checkpoint")])
        #expect(compared.status == 3, "\(compared.result.stdout)")
        let fork = try #require((compared.object["log"] as? [[String: Any]])?.first { $0["against"] != nil })
        #expect((fork["error"] as? [String: Any])?["code"] as? String == "log-fork", "\(fork)")
        // A's kept proof of beta (v2, naming its note kept beside it) compares as that note.
        let proof = try b.json(["verify", "--log", "--against", a.homeDir.url("state/main/log-proofs/beta@1.0.0")])
        #expect(proof.status == 3, "\(proof.result.stdout) \(proof.result.stderr)")
        let proofFork = (proof.object["log"] as? [[String: Any]])?.first { $0["against"] != nil }
        #expect((proofFork?["error"] as? [String: Any])?["code"] as? String == "log-fork", "\(proof.result.stdout)")
        // The proof alone, without the note it names, is a file the user did not give: not a fork.
        let alone = work.url("proof-alone/log-proofs/beta@1.0.0")
        try FileManager.default.createDirectory(atPath: work.url("proof-alone/log-proofs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: a.homeDir.url("state/main/log-proofs/beta@1.0.0"), toPath: alone)
        let missing = try b.json(["verify", "--log", "--against", alone])
        #expect(missing.status == 6 && code(missing) == "not-found", "\(missing.result.stdout) \(missing.result.stderr)")
        // The same checkpoint compared with itself is no fork.
        let same = try a.json(["verify", "--log", "--against", a.homeDir.url("state/main/checkpoint")])
        #expect(same.status == 0, "\(same.result.stdout)")
    }
}
