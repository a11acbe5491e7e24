import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// `corpus verify` on a home the process cannot write (a read-only bind mount of a real home:
/// `chmod` stops no root process). FTS5's integrity check is a write command, and Debian 12's
/// SQLite 3.40 has no read-only form of it, so the index of a pack this client built is checked on
/// a copy in TMPDIR (docs/cli.md "corpus verify").
@Suite struct ReadOnlyHomeVerifyTests {
    /// A home with `tides` installed (its pack indexed at install, the default), and the same home
    /// bound read-only elsewhere.
    struct ReadOnlyHome {
        let tree: PublishedCorpusTree
        let client: PublishedTreeClient
        let folder = TempDirectory("read-only-home")
        let mount: ScratchMount

        init() throws {
            tree = try PublishedCorpusTree(corpora: [.init(id: "tides", documents: PublishedCorpusTree.documents("tidewater harbour", count: 4))])
            let server = try tree.serve()
            defer { _ = server.stop() }
            client = PublishedTreeClient()
            try client.addRemote(server.url, trust: tree.rootPub)
            let r = try client.run(["install", "tides"])
            guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "install: \(r.stderr)") }
            mount = try ScratchMount.readOnlyBind(of: client.home, at: folder.path)
        }

        var pack: String { "\(client.home)/corpora/main/tides/current/pack.sqlite" }

        /// `corpus --home READ-ONLY verify --json`.
        func verify(env: [String: String] = [:]) throws -> (result: ProcessResult, entry: [String: Any]?) {
            let r = try ProcessRunner.run(BuiltProducts.corpus, ["--home", mount.path, "verify", "--json"], environment: client.childEnvironment(env))
            let object = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any]
            return (r, (object?["verified"] as? [[String: Any]])?.first)
        }
    }

    @Test(.enabled(if: ScratchMount.isPossible, "needs root and mount(8)"))
    func aSoundCorpusOnAReadOnlyHomeVerifies() throws {
        let h = try ReadOnlyHome()
        defer { h.mount.unmount() }
        #expect(FileManager.default.createFile(atPath: "\(h.mount.path)/probe", contents: nil) == false, "the bind must be read-only")
        let before = h.client.snapshot
        let (r, entry) = try h.verify()
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(entry?["corpus"] as? String == "main/tides" && entry?["ok"] as? Bool == true, "\(r.stdout)")
        let text = try ProcessRunner.run(BuiltProducts.corpus, ["--home", h.mount.path, "verify"], environment: h.client.childEnvironment())
        #expect(text.status == 0 && text.stdout.contains("ok main/tides"), "\(text.stdout) \(text.stderr)")
        #expect(h.client.snapshot == before)
    }

    @Test(.enabled(if: ScratchMount.isPossible, "needs root and mount(8)"))
    func anIndexThatDisagreesWithItsRowsIsFoundOnAReadOnlyHome() throws {
        let h = try ReadOnlyHome()
        defer { h.mount.unmount() }
        // Row 0 taken out of the index, and the install record made to agree with the new file:
        // only FTS5's integrity check can tell.
        let sql = "INSERT INTO passages_fts(passages_fts, rowid, title, section, text) SELECT 'delete', id, title, section, text FROM passages WHERE id = 0;"
        let edit = try ProcessRunner.run("sqlite3", [h.pack, sql])
        try #require(edit.status == 0, "\(edit.stderr)")
        let recordPath = "\(h.client.home)/corpora/main/tides/current/install.json"
        var record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: recordPath))) as? [String: Any])
        var local = try #require(record["local_pack"] as? [String: Any])
        let (digest, size) = try SHA256.digest(fileAt: h.pack)
        local["pack_sha256"] = digest.hex
        local["pack_size"] = size
        record["local_pack"] = local
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: recordPath))

        let writable = try h.client.json(["verify"])
        try #require(writable.result.status == 3, "the writable home must see the damage: \(writable.result.stdout)")
        let before = h.client.snapshot
        let (r, entry) = try h.verify()
        #expect(r.status == 3, "\(r.stdout) \(r.stderr)")
        let error = entry?["error"] as? [String: Any]
        let message = error?["message"] as? String ?? ""
        #expect(error?["code"] as? String == "unsafe-pack" && message.contains("integrity-check") && !message.contains("READONLY"), "\(r.stdout)")
        #expect(h.client.snapshot == before)
    }

    @Test(.enabled(if: ScratchMount.isPossible, "needs root and mount(8)"))
    func withoutRoomForTheCopyVerifySaysWhereToMakeRoom() throws {
        let h = try ReadOnlyHome()
        defer { h.mount.unmount() }
        let small = TempDirectory("small-tmp")
        let tmp = try ScratchMount.tmpfs(at: small.path, bytes: 64 << 10)
        defer { tmp.unmount() }
        let before = h.client.snapshot
        let (r, entry) = try h.verify(env: ["TMPDIR": tmp.path])
        #expect(r.status == 7, "\(r.stdout) \(r.stderr)")
        let error = entry?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "disk-full", "\(r.stdout)")
        #expect((error?["message"] as? String)?.contains("not enough free space in \(tmp.path)") == true, "\(r.stdout)")
        #expect((error?["hint"] as? String)?.contains("TMPDIR") == true, "\(r.stdout)")
        #expect(h.client.snapshot == before)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? ["?"]).isEmpty)
    }
}
