import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// An encrypted entitled corpus from a real SeaweedFS bucket, directly and through nginx as an
/// edge cache, with its key from a gate-only `corpusd serve --key-store`: `publish --to` puts the
/// payload with the public objects and the plaintext in the private prefix.
@Suite(.serialized) struct EncryptedHostingTests {
    @Test(.enabled(if: getuid() == 0 && MirrorNginx.binary != nil && SeaweedCluster.isAvailable, "needs nginx and weed, run as root"))
    func theEncryptedPayloadInstallsFromTheBucketAndThroughTheEdgeCache() throws {
        let f = try ObjectStoreFixture()
        let sealed = try f.noiseBundle(id: "sealed-noise", mebibytes: 4, word: "breakwater")
        try f.writeCatalog(id: "sealed-hosted", [["id": "sealed-noise", "version": "1", "bundle": sealed, "access": "entitled", "tier": "pro"]])
        let gatePort = freeLoopbackPort()
        let gateURL = "http://127.0.0.1:\(gatePort)"
        let published = try f.publish(f.uploadOptions() + ["--key-store", f.work.url("key-store"), "--gate-url", gateURL, "--json"])
        #expect(published.status == 0, "\(published.stdout)\n\(published.stderr)")
        let catalog = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: f.tree + "/catalogs/1.json")))
        let entry = try #require(catalog.corpora.first)
        let payload = try #require(entry.payload)
        // The payload is public; the plaintext bundle is not.
        #expect(try f.store.curl(["-o", "/dev/null", "\(f.publicURL)/\(payload.path)"], signed: false).stdout == "200")
        #expect(try f.store.curl(["-o", "/dev/null", "\(f.publicURL)/\(entry.bundle.path)"], signed: false).stdout != "200")

        let gate = try ServerProcess(BuiltProducts.corpusd, ["serve", f.tree, "--listen", "127.0.0.1:{PORT}", "--entitlement-pub", f.entitlementPub,
                                                            "--gate-only", "--private", "s3://\(ObjectStoreFixture.bucket)/private-tree",
                                                            "--endpoint", f.store.endpoint, "--public-url", f.publicURL, "--key-store", f.work.url("key-store")],
                                     port: gatePort, environment: f.environment)
        defer { gate.stop() }
        let token = try f.token(tier: "pro")
        let edge = try EdgeCacheNginx(upstream: f.store.endpoint, prefix: "/\(ObjectStoreFixture.bucket)/tree", packageRoot: ObjectStoreFixture.packageRoot)
        defer { edge.stop() }
        for (label, url) in [("bucket", f.publicURL), ("edge-1", edge.url), ("edge-2", edge.url)] {
            let client = IntegrationClient("sealed-\(label)")
            try client.must(["remote", "add", "sample", url, "--trust", f.rootPub])
            let before = client.snapshot
            #expect(try client.run(["install", "sealed-noise"]).status == 4, "\(label): no token, nothing")
            #expect(client.snapshot == before)
            let r = try client.run(["install", "sealed-noise", "--token", token], timeout: 300)
            #expect(r.status == 0, "\(label): \(r.stderr)")
            #expect(try client.run(["verify"], timeout: 300).status == 0)
        }
        let log = (try? String(contentsOfFile: edge.runtime.url("access.log"), encoding: .utf8)) ?? ""
        let lines = log.split(separator: "\n").filter { $0.contains(payload.path) }
        #expect(lines.count >= 2 && lines.last!.contains("cache=HIT"), "the second client's payload came from the edge cache: \(log)")
        #expect(!log.contains(entry.bundle.path), "the edge never saw the plaintext bundle asked for")
        #expect(gate.stderr.contains("/v1/keys/\(payload.digest.hex)") && !gate.stderr.contains(token))
    }
}
