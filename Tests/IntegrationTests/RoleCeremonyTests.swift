import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Keys by role end to end, with the real `corpusd` and `corpus` (docs/operations.md, "Keys by
/// role"): a single-key tree migrated in place to a 2-of-3 root whose holders each sign on their
/// own, publishing from a folder that holds only the online keys, clients installed before and
/// after the migration, and the stolen-online-key drill: the thief works from a copy of the tree
/// with the stolen keys; after the root holders rotate both online keys every client refuses
/// the thief and accepts the publisher's next catalog.
@Suite struct RoleCeremonyTests {
    static func corpora(logbook: String, chartsVersion: String = "1") -> [IntegrationPublisher.CorpusSpec] {
        [.init(id: "logbook", version: logbook, title: "Ship's logbook", documents: [
            "watch.md": "# Watch log\n\n## Morning\n\nThe morning watch logged entry \(logbook) off the starboard bow.\n"]),
         .init(id: "charts", version: chartsVersion, title: "Harbour charts", documents: [
            "charts.md": "# Charts\n\nSoundings of the harbour entrance and the leading lights.\n"])]
    }

    func corpusd(_ args: [String]) throws -> ProcessResult { try ProcessRunner.run(BuiltProducts.corpusd, args, timeout: 120) }

    func must(_ args: [String]) throws {
        let r = try corpusd(args)
        guard r.status == 0 else { throw IntegrationError("corpusd \(args.joined(separator: " ")) exited \(r.status): \(r.stderr)") }
    }

    @Test func migrationThresholdsAndTheStolenOnlineKeyDrill() throws {
        let publisher = IntegrationPublisher(catalogID: "roles")
        let old = try publisher.keygen("old")
        try publisher.writeCatalog(Self.corpora(logbook: "1"))
        try publisher.mustPublish(key: old.secret)
        var server = try publisher.serve()
        defer { server.stop() }

        // A client from before the migration, with both corpora installed under the single key.
        let before = IntegrationClient("before")
        try before.must(["remote", "add", "main", server.url, "--trust", old.pub])
        try before.must(["install", "logbook", "charts"])

        // Three root holders, each with a key of their own in a folder of their own; online keys apart.
        let holders = try (1...3).map { i -> IntegrationPublisher.KeyPair in
            let dir = publisher.work.url("holder\(i)")
            let r = try corpusd(["keygen", "--out", dir, "--name", "root\(i)"])
            guard r.status == 0 else { throw IntegrationError(r.stderr) }
            return .init(secret: "\(dir)/root\(i).key", pub: "\(dir)/root\(i).pub")
        }
        let online = publisher.work.url("online")
        for name in ["catalog", "timestamp"] { try must(["keygen", "--out", online, "--name", name]) }
        let draft = publisher.work.url("root-2.draft.json")
        try must(["root", "draft", "--out", draft, "--from", publisher.publicDir] + holders.flatMap { ["--root-key", $0.pub] }
                 + ["--root-threshold", "2", "--catalog-key", "\(online)/catalog.pub", "--timestamp-key", "\(online)/timestamp.pub"])
        try must(["root", "sign", draft, "--key", old.secret])
        try must(["root", "sign", draft, "--key", holders[0].secret])

        // One of the new root keys is not enough: refused, naming the keys still missing, tree unchanged.
        let tree = DirectorySnapshot(publisher.publicDir)
        let short = try corpusd(["root", "publish", draft, "--out", publisher.publicDir])
        #expect(short.status != 0)
        let missingID = try PublicKey(contentsOf: holders[1].pub).keyID.description
        #expect(short.stderr.contains(missingID), "\(short.stderr)")
        #expect(DirectorySnapshot(publisher.publicDir) == tree)

        try must(["root", "sign", draft, "--key", holders[1].secret])
        try must(["root", "publish", draft, "--out", publisher.publicDir])
        // Any one signature checks by hand with minisign.
        let h1 = try PublicKey(contentsOf: holders[0].pub).keyID.description
        let byHand = try ProcessRunner.run("minisign", ["-Vm", "\(publisher.publicDir)/keys/root-2.json",
                                                        "-x", "\(publisher.publicDir)/keys/root-2.json.\(h1).minisig", "-p", holders[0].pub])
        #expect(byHand.status == 0, "\(byHand.stderr)")

        // Publishing now needs only the online keys: the folder holds nothing else.
        try publisher.writeCatalog(Self.corpora(logbook: "2"))
        try must(["publish", publisher.catalogDir, "--out", publisher.publicDir, "--key", "\(online)/catalog.key",
                  "--timestamp-key", "\(online)/timestamp.key"])
        #expect(try publisher.pointerVersion() == 2)

        // The client from before follows the migration; its charts, signed by the old key, still verify.
        let synced = try before.json(["sync"])
        #expect(synced.status == 0, "\(synced.result.stderr)")
        let verified = try before.run(["verify"])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        // A client from after, pinned to the root document.
        let after = IntegrationClient("after")
        try after.must(["remote", "add", "main", server.url, "--trust", "\(publisher.publicDir)/keys/root-2.json"])
        try after.must(["install", "logbook", "charts"])
        for client in [before, after] {
            #expect(IntegrationHit.hits(try client.json(["search", "morning watch"]).object).contains { $0.corpus == "logbook" && $0.version == "2" })
        }

        // The drill. The thief copies the tree and the two online keys, and publishes three times
        // from the copy: catalog 5, ahead of the publisher.
        let thief = TempDirectory("thief")
        try FileManager.default.removeItem(atPath: thief.path)
        try FileManager.default.copyItem(atPath: publisher.publicDir, toPath: thief.path)
        try publisher.writeCatalog(Self.corpora(logbook: "9"))
        for _ in 0..<3 {
            try must(["publish", publisher.catalogDir, "--out", thief.path, "--key", "\(online)/catalog.key", "--timestamp-key", "\(online)/timestamp.key"])
        }
        #expect(try publisher.pointerVersion(tree: thief.path) == 5)
        let port = server.port
        #expect(server.stop() == 0)
        server = try publisher.serve(tree: thief.path, port: port)
        for client in [before, after] {
            let r = try client.json(["sync"])
            #expect(r.status == 0, "the stolen keys are valid until rotated: \(r.result.stderr)")
        }

        // The root holders rotate both online keys: root 3, signed by holders 1 and 3, on their own machines.
        let fresh = publisher.work.url("online2")
        for name in ["catalog", "timestamp"] { try must(["keygen", "--out", fresh, "--name", name]) }
        let draft3 = publisher.work.url("root-3.draft.json")
        try must(["root", "draft", "--out", draft3, "--from", publisher.publicDir] + holders.flatMap { ["--root-key", $0.pub] }
                 + ["--root-threshold", "2", "--catalog-key", "\(fresh)/catalog.pub", "--timestamp-key", "\(fresh)/timestamp.pub"])
        try must(["root", "sign", draft3, "--key", holders[0].secret])
        try must(["root", "sign", draft3, "--key", holders[2].secret])
        try must(["root", "publish", draft3, "--out", publisher.publicDir])
        try publisher.writeCatalog(Self.corpora(logbook: "3"))
        try must(["publish", publisher.catalogDir, "--out", publisher.publicDir, "--key", "\(fresh)/catalog.key", "--timestamp-key", "\(fresh)/timestamp.key"])
        #expect(try publisher.pointerVersion() == 3)

        // Served again: catalog 3, below the thief's 5, is accepted by every client.
        #expect(server.stop() == 0)
        server = try publisher.serve(port: port)
        for client in [before, after] {
            let r = try client.json(["sync"])
            #expect(r.status == 0, "\(r.result.stdout) \(r.result.stderr)")
            #expect(IntegrationHit.hits(try client.json(["search", "morning watch"]).object).contains { $0.corpus == "logbook" && $0.version == "3" })
        }

        // The thief publishes again with the revoked keys (catalog 6): refused, homes unchanged.
        try publisher.writeCatalog(Self.corpora(logbook: "10"))
        try must(["publish", publisher.catalogDir, "--out", thief.path, "--key", "\(online)/catalog.key", "--timestamp-key", "\(online)/timestamp.key"])
        #expect(server.stop() == 0)
        server = try publisher.serve(tree: thief.path, port: port)
        for client in [before, after] {
            let snapshot = client.snapshot
            let r = try client.json(["sync"])
            #expect(r.status == 3, "\(r.result.stdout) \(r.result.stderr)")
            #expect(client.snapshot == snapshot)
        }
    }
}
