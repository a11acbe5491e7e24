import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// Updates by delta through the real `corpus` and `corpusd` (issue 14): the client on the old
/// version syncs by delta, its answers equal a fresh install's, `verify` holds and notices a
/// flipped byte, and every refused delta leaves the home byte-identical (with the full bundle
/// gone, so nothing else changes it) or falls back to the full bundle when it is there.
@Suite struct DeltaUpdateTests {
    static let queries = ["tidewater", "flooding harbour", "anchor bearing", "paragraph 2 of note 3", "compass gale shoal"]

    @Test func aClientOnTheOldVersionSyncsByDeltaAndAnswersLikeAFreshInstall() throws {
        let f = try DeltaFixture()
        let delta = try f.delta(), bundle = try f.entry().bundle
        #expect(delta.size * 2 < bundle.size, "the delta is \(delta.size) bytes, the bundle \(bundle.size)")
        let sync = try f.client.json(["sync"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        let result = try DeltaFixture.result(sync)
        #expect(result["status"] as? String == "updated" && result["via"] as? String == "delta", "\(result)")
        #expect((result["bytes_downloaded"] as? Int).map(Int64.init) == delta.size, "\(result)")
        #expect(result["delta_error"] == nil)

        let fresh = PublishedTreeClient()
        try fresh.addRemote(f.server.url, trust: f.tree.rootPub)
        let install = try fresh.json(["install", "tides"])
        #expect(try DeltaFixture.result(install)["via"] as? String == "full")
        try DeltaFixture.expectSameAnswers(f.client, fresh, queries: Self.queries)
        let vectors = "corpora/main/tides/current/vectors.bin"
        #expect(FileManager.default.contentsEqual(atPath: "\(f.client.home)/\(vectors)", andPath: "\(fresh.home)/\(vectors)"))
        let verify = try f.client.run(["verify"])
        #expect(verify.status == 0, "\(verify.stderr)")
        // Synced again: nothing to do, and the home keeps one version after gc.
        #expect(try DeltaFixture.result(f.client.json(["sync"]))["status"] as? String == "unchanged")
        #expect(try f.client.run(["gc"]).status == 0)
        #expect(f.client.entries("corpora/main/tides/versions") == ["2"])
    }

    @Test func verifyAfterADeltaNoticesAFlippedByteInThePackOrTheVectors() throws {
        let f = try DeltaFixture()
        #expect(try DeltaFixture.result(f.client.json(["sync"]))["via"] as? String == "delta")
        for file in ["pack.sqlite", "vectors.bin"] {
            let copy = try PublishedTreeClient(copying: f.client)
            let path = "\(copy.home)/corpora/main/tides/current/\(file)"
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            let offset = UInt64(try #require(FileManager.default.sizeIfExists(path)) / 2)
            try handle.seek(toOffset: offset)
            let byte = try #require(try handle.read(upToCount: 1)).first!
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: Data([byte ^ 0x20]))
            try handle.close()
            let verify = try copy.json(["verify"])
            #expect(verify.result.status == 3, "\(file): \(verify.result.stdout) \(verify.result.stderr)")
            let entry = (verify.object?["verified"] as? [[String: Any]])?.first
            let error = entry?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "integrity" && (error?["message"] as? String ?? "").contains(file), "\(file): \(verify.result.stdout)")
        }
    }

    /// The delta's refusal as `sync --json` reports it with no full bundle to fall back to: exit 6
    /// (the bundle is gone), the delta's error named, the home byte-identical.
    static func expectRefused(_ f: DeltaFixture, code: String, containing text: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        try f.removeFullBundle()
        let before = f.client.snapshot
        let sync = try f.client.json(["sync"])
        #expect(sync.result.status == 6, "\(sync.result.stdout) \(sync.result.stderr)", sourceLocation: sourceLocation)
        let result = try DeltaFixture.result(sync)
        let error = try #require(result["delta_error"] as? [String: Any], "\(result)", sourceLocation: sourceLocation)
        #expect(error["code"] as? String == code, "\(error)", sourceLocation: sourceLocation)
        #expect((error["message"] as? String ?? "").contains(text), "\(error)", sourceLocation: sourceLocation)
        #expect(sync.result.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("note: main/tides: the delta was not used") }.count == 1,
                "\(sync.result.stderr)", sourceLocation: sourceLocation)
        #expect(f.client.snapshot == before, "the home changed", sourceLocation: sourceLocation)
        #expect(try f.client.installed() == ["tides@1"], sourceLocation: sourceLocation)
    }

    @Test func aDeltaSignedByAnUntrustedKeyIsRefused() throws {
        let f = try DeltaFixture()
        let stranger = try SecretKey(contentsOf: f.tree.strangerKey)
        try f.listDelta(try f.craftDelta(key: stranger))
        try Self.expectRefused(f, code: "signature", containing: "signed by key \(stranger.keyID)")
    }

    @Test func aDeltaWhoseBytesDifferFromTheCatalogsHashIsRefused() throws {
        let f = try DeltaFixture()
        let path = "\(f.tree.publicDir)/\(try f.delta().path)"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        try Self.expectRefused(f, code: "integrity", containing: "SHA-256 is")
    }

    @Test func aDeltaWhoseResultDoesNotMatchTheSignedDigestIsRefused() throws {
        let f = try DeltaFixture()
        // Signed by the root key and well formed, but an added passage's text is not the one signed.
        try f.listDelta(try f.craftDelta(key: try f.rootKey) { changes in
            let i = changes.rows.firstIndex(where: \.isAdded)!
            changes.rows[i].text! += " (altered)"
        })
        try Self.expectRefused(f, code: "delta", containing: "applying the delta gave rows digest")
    }

    @Test func aDeltaNamingPassagesTheInstalledVersionDoesNotHaveIsRefused() throws {
        let f = try DeltaFixture()
        try f.listDelta(try f.craftDelta(key: try f.rootKey) { changes in
            changes.removed[0].pid = String(repeating: "0", count: 32)
        })
        try Self.expectRefused(f, code: "delta", containing: "holds passage")
    }

    @Test func aDeltaLargerThanItsDeclaredSizeIsRefused() throws {
        let f = try DeltaFixture()
        try f.resign { c in c.corpora[0].deltas![0].size -= 1 }
        try Self.expectRefused(f, code: "integrity", containing: "more than the signed size")
    }

    @Test func aRefusedDeltaFallsBackToTheFullBundleAndSaysSo() throws {
        let f = try DeltaFixture()
        try f.listDelta(try f.craftDelta(key: try SecretKey(contentsOf: f.tree.strangerKey)))
        let delta = try f.delta(), bundle = try f.entry().bundle
        let sync = try f.client.json(["sync"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        let result = try DeltaFixture.result(sync)
        #expect(result["via"] as? String == "full" && result["status"] as? String == "updated", "\(result)")
        #expect((result["bytes_downloaded"] as? Int).map(Int64.init) == delta.size + bundle.size, "\(result)")
        #expect((result["delta_error"] as? [String: Any])?["code"] as? String == "signature", "\(result)")
        #expect(sync.result.stderr.contains("note: main/tides: the delta was not used"), "\(sync.result.stderr)")
        #expect(try f.client.installed() == ["tides@2"])
        #expect(try f.client.run(["verify"]).status == 0)
    }

    @Test(.enabled(if: MirrorNginx.binary != nil && getuid() == 0, "needs nginx, run as root"))
    func aClientSyncsByDeltaFromNginx() throws {
        let f = try DeltaFixture()
        // nginx workers run as nobody: the tree must be readable to them.
        _ = try ProcessRunner.run("/bin/chmod", ["-R", "a+rX", f.tree.work.path])
        let nginx = try MirrorNginx(tree: f.tree.publicDir, packageRoot: BuildWithModelCLITests.packageRoot.path)
        defer { nginx.stop() }
        try f.client.addRemote(nginx.url, trust: f.tree.rootPub)
        let sync = try f.client.json(["sync"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        #expect(try DeltaFixture.result(sync)["via"] as? String == "delta")
        #expect(nginx.accessLog.contains("GET /deltas/"), "\(nginx.accessLog)")
        let fresh = PublishedTreeClient()
        try fresh.addRemote(nginx.url, trust: f.tree.rootPub)
        #expect(try fresh.run(["install", "tides"]).status == 0)
        try DeltaFixture.expectSameAnswers(f.client, fresh, queries: Self.queries)
    }
}
