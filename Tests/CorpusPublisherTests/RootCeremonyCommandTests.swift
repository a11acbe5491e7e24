import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// The root ceremony with the real `corpusd` binary, each holder's key in a folder of its own:
/// `root draft`, `root sign`, `root publish`, then `publish` and `timestamp` from a folder that
/// holds only the online keys. Every refusal is checked for its exit code, its one line, and
/// that nothing on disk changed.
@Suite struct RootCeremonyCommandTests {
    /// Three holders (`holder0…2/`), an online folder with the catalog and timestamp keys, and a
    /// catalog folder with one corpus.
    final class Ceremony {
        let dir = TempDirectory("ceremony")
        var tree: String { dir.url("public") }
        var draft: String { dir.url("work/root.json") }

        init() throws {
            for name in ["holder0", "holder1", "holder2", "online"] { try FileIO.createDirectory(dir.url(name)) }
            for h in 0..<3 { try keygen("holder\(h)", "root") }
            try keygen("online", "catalog")
            try keygen("online", "timestamp")
            try FileIO.createDirectory(dir.url("work"))
            try dir.write("catalog/catalog.json", #"{"id": "ceremony", "title": "Ceremony", "corpora": [{"id": "tides", "version": "1", "source": "tides", "access": "free"}]}"#)
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
        }

        func keygen(_ folder: String, _ name: String) throws {
            let r = try corpusd(["keygen", "--out", dir.url(folder), "--name", name])
            try #require(r.status == 0, "\(r.stderr)")
        }

        func keyID(_ folder: String, _ name: String) throws -> String { try PublicKey(contentsOf: dir.url("\(folder)/\(name).pub")).keyID.description }

        func corpusd(_ args: [String]) throws -> ProcessResult { try ProcessRunner.run(BuiltProducts.corpusd, args, timeout: 120) }

        /// `root draft` of a 2-of-3 root with the online keys; `from` for the next root of a tree.
        func draftArguments(from: String? = nil, threshold: String = "2") -> [String] {
            ["root", "draft", "--out", draft] + (from.map { ["--from", $0] } ?? [])
                + (0..<3).flatMap { ["--root-key", dir.url("holder\($0)/root.pub")] }
                + ["--root-threshold", threshold, "--catalog-key", dir.url("online/catalog.pub"), "--timestamp-key", dir.url("online/timestamp.pub")]
        }

        func sign(_ holder: Int) throws -> ProcessResult { try corpusd(["root", "sign", draft, "--key", dir.url("holder\(holder)/root.key")]) }

        func publishOnline(_ extra: [String] = []) throws -> ProcessResult {
            try corpusd(["publish", dir.url("catalog"), "--out", tree, "--key", dir.url("online/catalog.key")] + extra)
        }

        /// `attempt` for a command: what it printed and exited with, and whether the folder was left alone.
        func refused(_ args: [String]) throws -> (ProcessResult, Bool) {
            let before = DirectorySnapshot(dir.path)
            let r = try corpusd(args)
            let after = DirectorySnapshot(dir.path)
            if after != before { print("changed:", after.entries.filter { before.entries[$0.key] != $0.value }.keys, before.entries.filter { after.entries[$0.key] == nil }.keys) }
            return (r, after == before)
        }
    }

    @Test func aTwoOfThreeRootFromHoldersInSeparateFoldersThenPublishingWithTheOnlineKeysAlone() throws {
        let c = try Ceremony()
        let drafted = try c.corpusd(c.draftArguments())
        #expect(drafted.status == 0, "\(drafted.stderr)")
        #expect(drafted.stdout.contains("needs 2 of root 1's root keys"))
        let first = try c.sign(0)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("is a root key of root 1"))
        let id0 = try c.keyID("holder0", "root"), id2 = try c.keyID("holder2", "root")
        #expect(FileIO.exists("\(c.draft).\(id0).minisig"))
        #expect(try c.sign(2).status == 0)

        let installed = try c.corpusd(["root", "publish", c.draft, "--out", c.tree, "--json"])
        #expect(installed.status == 0, "\(installed.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: installed.stdoutData) as? [String: Any])
        #expect(json["root_version"] as? Int == 1)
        #expect(Set(json["signers"] as? [String] ?? []) == [id0, id2])
        // One holder's signature checks by hand with minisign and that holder's .pub alone.
        let byHand = try PublisherFixtures.minisignVerify("\(c.tree)/keys/root-1.json", publicKey: c.dir.url("holder2/root.pub"),
                                                          signature: "\(c.tree)/keys/root-1.json.\(id2).minisig")
        #expect(byHand.status == 0, "\(byHand.stderr)")
        #expect(byHand.stdout.contains("Trusted comment: root:1 signer:\(id2)"))
        #expect(try RootKeyChain.load(tree: c.tree).newest?.role(.root).threshold == 2)

        // The publishing host holds only the online keys.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: c.dir.url("online"))) == ["catalog.key", "catalog.pub", "timestamp.key", "timestamp.pub"])
        let published = try c.publishOnline(["--timestamp-key", c.dir.url("online/timestamp.key"), "--json"])
        #expect(published.status == 0, "\(published.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: published.stdoutData) as? [String: Any])
        #expect((summary["notices"] as? [Any])?.isEmpty == true)
        #expect((summary["timestamp"] as? [String: Any])?["catalog_version"] as? Int == 1)
        #expect(try PublisherFixtures.minisignVerify("\(c.tree)/catalogs/1.json", publicKey: c.dir.url("online/catalog.pub")).status == 0)
        #expect(try PublisherFixtures.minisignVerify("\(c.tree)/timestamp.json", publicKey: c.dir.url("online/timestamp.pub")).status == 0)

        let withoutTimestamp = try c.publishOnline()
        #expect(withoutTimestamp.status == 0, "\(withoutTimestamp.stderr)")
        #expect(withoutTimestamp.stderr.contains("warning: timestamp.json was not updated"))
        let cron = try c.corpusd(["timestamp", c.tree, "--key", c.dir.url("online/timestamp.key"), "--expires", "6h", "--json"])
        #expect(cron.status == 0, "\(cron.stderr)")
        let stamped = try #require(try JSONSerialization.jsonObject(with: cron.stdoutData) as? [String: Any])
        #expect(stamped["version"] as? Int == 2 && stamped["catalog_version"] as? Int == 2)

        // A client that ships root 1 (as TUF clients ship their first root) installs from it.
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", c.tree, "--listen", "127.0.0.1:{PORT}"])
        defer { _ = server.stop() }
        let client = IntegrationClient("ceremony-client")
        try client.must(["remote", "add", "main", server.url, "--trust", "\(c.tree)/keys/root-1.json"])
        let installed2 = try client.run(["install", "tides"])
        #expect(installed2.status == 0, "\(installed2.stderr)")
    }

    @Test func rootPublishBelowThresholdNamesTheKeysStillMissing() throws {
        let c = try Ceremony()
        #expect(try c.corpusd(c.draftArguments()).status == 0)
        let (none, untouched) = try c.refused(["root", "publish", c.draft, "--out", c.tree])
        #expect(none.status == 3)
        let ids = try (0..<3).map { try c.keyID("holder\($0)", "root") }
        #expect(none.stderr.hasPrefix("error: root 1 is not signed by enough root keys: 0 of root 1's root keys signed, 2 needed (not yet signed by \(ids.joined(separator: ", ")))"))
        #expect(untouched && !FileIO.exists(c.tree))

        #expect(try c.sign(1).status == 0)
        let (one, unchanged) = try c.refused(["root", "publish", c.draft, "--out", c.tree, "--json"])
        #expect(one.status == 3)
        let error = try #require((try JSONSerialization.jsonObject(with: one.stdoutData) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "root-threshold")
        #expect(error["message"] as? String == "root 1 is not signed by enough root keys: 1 of root 1's root keys signed, 2 needed (not yet signed by \(ids[0]), \(ids[2]))")
        #expect(unchanged)
    }

    @Test func aCopiedSignatureFileCountsOnce() throws {
        let c = try Ceremony()
        #expect(try c.corpusd(c.draftArguments()).status == 0)
        #expect(try c.sign(0).status == 0)
        let id0 = try c.keyID("holder0", "root"), id1 = try c.keyID("holder1", "root"), id2 = try c.keyID("holder2", "root")
        try FileManager.default.copyItem(atPath: "\(c.draft).\(id0).minisig", toPath: "\(c.draft).\(id1).minisig")
        let (r, unchanged) = try c.refused(["root", "publish", c.draft, "--out", c.tree])
        #expect(r.status == 3)
        #expect(r.stderr.contains("1 of root 1's root keys signed, 2 needed (not yet signed by \(id1), \(id2))"))
        #expect(unchanged)

        // With a second real signature it goes in, and only real signers' files are installed.
        #expect(try c.sign(2).status == 0)
        #expect(try c.corpusd(["root", "publish", c.draft, "--out", c.tree]).status == 0)
        #expect(FileIO.exists("\(c.tree)/keys/root-1.json.\(id0).minisig") && FileIO.exists("\(c.tree)/keys/root-1.json.\(id2).minisig"))
        #expect(!FileIO.exists("\(c.tree)/keys/root-1.json.\(id1).minisig"))
    }

    @Test func keysOutsideTheirRolesAreRefusedAndNothingChanges() throws {
        let c = try Ceremony()
        #expect(try c.corpusd(c.draftArguments()).status == 0)
        for h in [0, 1] { #expect(try c.sign(h).status == 0) }
        #expect(try c.corpusd(["root", "publish", c.draft, "--out", c.tree]).status == 0)
        #expect(try c.publishOnline(["--timestamp-key", c.dir.url("online/timestamp.key")]).status == 0)
        try c.keygen("stranger", "catalog")
        let catalogID = try c.keyID("online", "catalog"), timestampID = try c.keyID("online", "timestamp")

        let (stranger, a) = try c.refused(["publish", c.dir.url("catalog"), "--out", c.tree, "--key", c.dir.url("stranger/catalog.key")])
        #expect(stranger.status == 3)
        let strangerID = try c.keyID("stranger", "catalog")
        #expect(stranger.stderr.hasPrefix("error: key \(strangerID) is not a catalog key of root 1 (its catalog keys: \(catalogID))"))
        #expect(a)

        let (rootKey, b) = try c.refused(["publish", c.dir.url("catalog"), "--out", c.tree, "--key", c.dir.url("holder0/root.key")])
        #expect(rootKey.status == 3 && rootKey.stderr.contains("is not a catalog key of root 1"))
        #expect(b)

        let (timestamp, d) = try c.refused(["timestamp", c.tree, "--key", c.dir.url("online/catalog.key")])
        #expect(timestamp.status == 3)
        #expect(timestamp.stderr.hasPrefix("error: key \(catalogID) is not a timestamp key of root 1 (its timestamp keys: \(timestampID))"))
        #expect(d)

        let (rotate, e) = try c.refused(["rotate-key", "--out", c.tree, "--key", c.dir.url("holder0/root.key"), "--new-key", c.dir.url("holder1/root.key")])
        #expect(rotate.status == 2)
        #expect(rotate.stderr.contains("corpusd root draft"))
        #expect(e)
    }

    @Test func draftAndPublishMistakesAreUsageErrorsThatWriteNothing() throws {
        let c = try Ceremony()
        let (threshold, a) = try c.refused(c.draftArguments(threshold: "4"))
        #expect(threshold.status == 2)
        #expect(threshold.stderr.hasPrefix("error: root draft \(c.draft): --root-threshold 4 is not between 1 and the 3 --root-key(s) given"))
        #expect(a)
        let (online, b) = try c.refused(c.draftArguments() + ["--catalog-threshold", "2", "--catalog-key", c.dir.url("online/timestamp.pub")])
        #expect(online.status == 2 && online.stderr.contains("its threshold is 1 in this release"))
        #expect(b)
        let (twice, d) = try c.refused(c.draftArguments() + ["--root-key", c.dir.url("holder0/root.pub")])
        let id0 = try c.keyID("holder0", "root")
        #expect(twice.status == 2 && twice.stderr.contains("--root-key names key \(id0) twice"))
        #expect(d)
        let (tooLong, e) = try c.refused(c.draftArguments() + ["--expires", "2000d"])
        #expect(tooLong.status == 2)
        #expect(e)

        #expect(try c.corpusd(c.draftArguments()).status == 0)
        let (exists, f) = try c.refused(c.draftArguments())
        #expect(exists.status == 7 && exists.stderr.contains("already exists"))
        #expect(f)

        for h in [0, 1] { #expect(try c.sign(h).status == 0) }
        #expect(try c.corpusd(["root", "publish", c.draft, "--out", c.tree]).status == 0)
        let (again, g) = try c.refused(["root", "publish", c.draft, "--out", c.tree])
        #expect(again.status == 2)
        #expect(again.stderr.hasPrefix("error: the draft is root 1, and the tree's next root is 2"))
        #expect(g)
    }

    @Test func aSingleKeyTreeMigratesInPlaceAndPublishesWithTheCatalogKey() throws {
        let c = try Ceremony()
        try c.keygen("old", "root")
        let oldID = try c.keyID("old", "root")
        let single = try c.corpusd(["publish", c.dir.url("catalog"), "--out", c.tree, "--key", c.dir.url("old/root.key"), "--json"])
        #expect(single.status == 0, "\(single.stderr)")
        let notices = try #require((try JSONSerialization.jsonObject(with: single.stdoutData) as? [String: Any])?["notices"] as? [[String: Any]])
        #expect(notices.map { $0["code"] as? String } == ["single-key"])
        #expect(try PublisherFixtures.minisignVerify("\(c.tree)/timestamp.json", publicKey: c.dir.url("old/root.pub")).status == 0)

        #expect(try c.corpusd(c.draftArguments(from: c.tree)).status == 0)
        // The new holders alone do not make root 2: root 1's key has not signed.
        for h in [0, 2] { #expect(try c.sign(h).status == 0) }
        let (withoutOld, unchanged) = try c.refused(["root", "publish", c.draft, "--out", c.tree])
        #expect(withoutOld.status == 3)
        #expect(withoutOld.stderr.contains("0 of root 1's root keys signed, 1 needed (not yet signed by \(oldID))"))
        #expect(unchanged)

        // A client that pinned the single key before the migration.
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", c.tree, "--listen", "127.0.0.1:{PORT}"])
        defer { _ = server.stop() }
        let before = IntegrationClient("before-migration")
        try before.must(["remote", "add", "main", server.url, "--trust", c.dir.url("old/root.pub")])
        try before.must(["install", "tides"])

        let oldSign = try c.corpusd(["root", "sign", c.draft, "--key", c.dir.url("old/root.key")])
        #expect(oldSign.status == 0)
        #expect(oldSign.stdout.contains("is not a root key of root 2: its signature counts only if it is a root key of root 1"))
        let installed = try c.corpusd(["root", "publish", c.draft, "--out", c.tree])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(!FileIO.exists("\(c.tree)/keys/root.pub"))
        #expect(FileIO.exists("\(c.tree)/keys/root-2.json.\(oldID).minisig"))
        #expect(try PublisherFixtures.minisignVerify("\(c.tree)/keys/root-2.json", publicKey: c.dir.url("old/root.pub"),
                                                     signature: "\(c.tree)/keys/root-2.json.\(oldID).minisig").status == 0)

        let (oldKey, untouched) = try c.refused(["publish", c.dir.url("catalog"), "--out", c.tree, "--key", c.dir.url("old/root.key")])
        #expect(oldKey.status == 3 && oldKey.stderr.contains("is not a catalog key of root 2"))
        #expect(untouched)
        let next = try c.publishOnline(["--timestamp-key", c.dir.url("online/timestamp.key"), "--json"])
        #expect(next.status == 0, "\(next.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: next.stdoutData) as? [String: Any])
        #expect(summary["root_version"] as? Int == 2)
        #expect((summary["notices"] as? [Any])?.isEmpty == true)
        #expect((summary["timestamp"] as? [String: Any])?["version"] as? Int == 2)
        let chain = try RootKeyChain.load(tree: c.tree)
        #expect(chain.roots.map(\.format) == [1, 2])

        // The client from before follows root 2 and takes the catalog its catalog key signed; a
        // client that ships root 2 installs.
        let synced = try before.run(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try before.run(["verify"]).status == 0)
        let after = IntegrationClient("after-migration")
        try after.must(["remote", "add", "main", server.url, "--trust", "\(c.tree)/keys/root-2.json"])
        let fresh = try after.run(["install", "tides"])
        #expect(fresh.status == 0, "\(fresh.stderr)")
    }
}
