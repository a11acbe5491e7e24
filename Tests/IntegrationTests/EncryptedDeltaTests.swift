import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// A delta of an encrypted entitled corpus: published encrypted under a key of its own, its
/// payload carried by a mirror made without a token, its key from the gate, applied by `sync`.
@Suite struct EncryptedDeltaTests {
    @Test func aDeltaOfAnEncryptedCorpusIsAppliedFromAMirrorWithItsOwnKey() async throws {
        let keys = TempDirectory("key-store")
        let gatePort = freeLoopbackPort()
        let gateURL = "http://127.0.0.1:\(gatePort)"
        let tree = try PublishedCorpusTree(catalogID: "sealed-deltas", publishArguments: ["--key-store", keys.url("store"), "--gate-url", gateURL],
                                           corpora: [.init(id: "tides", access: "entitled", tier: "pro", documents: DeltaFixture.documents(version: 1))])
        let gate = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}",
                                                             "--entitlement-pub", tree.entitlementPub, "--key-store", keys.url("store")], port: gatePort)
        defer { gate.stop() }
        let work = TempDirectory("sealed-delta-mirror")
        func mirror() throws {
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["mirror", gateURL, "--out", work.url("m"), "--trust", tree.rootPub])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try mirror()
        let source = try MisbehavingServer(root: work.url("m"))
        defer { source.stop() }
        let client = PublishedTreeClient()
        try client.addRemote(source.baseURL, trust: tree.rootPub)
        let token = try tree.token(tier: "pro")
        client.environment["CORPUS_TOKEN"] = token
        #expect(try client.run(["install", "tides"]).status == 0)

        try tree.publish([.init(id: "tides", version: "2", access: "entitled", tier: "pro", documents: DeltaFixture.documents(version: 2))])
        let entry = try #require(try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/catalogs/2.json"))).corpora.first)
        let delta = try #require(entry.deltas?.first)
        let deltaPayload = try #require(delta.payload, "the delta is encrypted too")
        #expect(deltaPayload.digest != entry.payload?.digest)
        #expect(try FileManager.default.contentsOfDirectory(atPath: keys.url("store")).count == 3, "one key per bundle version and per delta")
        try mirror()
        #expect(!FileManager.default.fileExists(atPath: work.url("m/" + delta.path)), "the mirror holds no plaintext delta")

        // Stopped once the delta is verified and the new version built in staging: no file of
        // the home but the staged folder's holds the plaintext delta (it is read through its payload).
        let stopped = try client.run(["sync"], env: ["CORPUS_TEST_KILL_AT": "delta-verified"])
        #expect(stopped.status != 0, "the sync was stopped at its step")
        #expect(client.entries("staging").contains { $0.hasSuffix(".tides.2") }, "the staged version is there: \(client.entries("staging"))")
        let holding = try client.filesHoldingArchive(tree.publicDir + "/" + delta.path, stagedSuffix: ".tides.2")
        #expect(holding.isEmpty, "files holding the plaintext delta: \(holding)")
        #expect(try client.run(["gc"]).status == 0, "gc removes what the stopped sync left")

        let sync = try client.json(["sync"])
        #expect(sync.result.status == 0, "\(sync.result.stderr)")
        let result = try DeltaFixture.result(sync)
        #expect(result["status"] as? String == "updated" && result["via"] as? String == "delta", "\(result)")
        #expect(result["delta_error"] == nil, "\(result)")
        #expect(!source.requests(for: "/" + deltaPayload.path).isEmpty && source.requests(for: "/" + (entry.payload?.path ?? "")).isEmpty,
                "the delta's payload, not the bundle's, came from the mirror")
        #expect(source.requests.allSatisfy { $0.headers["authorization"] == nil })
        #expect(gate.stderrEventuallyContains("/v1/keys/\(deltaPayload.digest.hex)"))
        #expect(try client.run(["verify"]).status == 0)
        #expect(client.entries("staging").isEmpty && client.entries("downloads").isEmpty)
    }
}
