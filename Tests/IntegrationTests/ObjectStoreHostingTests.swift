import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Hosting past one machine, with real processes only: `corpusd publish --to` writes the sample
/// catalog and a generated 100 MiB corpus into a real SeaweedFS; `corpus` installs from the bucket
/// directly and through nginx as an edge cache; an entitled corpus installs through a gate-only
/// `corpusd serve` that answers with a presigned redirect, and is refused without a token.
@Suite(.serialized) struct ObjectStoreHostingTests {
    @Test(.enabled(if: getuid() == 0 && MirrorNginx.binary != nil, "needs nginx, run as root"))
    func sampleCatalogAndALargeCorpusInstallFromTheBucketDirectlyThroughTheEdgeAndThroughTheGate() throws {
        let f = try ObjectStoreFixture()
        let big = try f.noiseBundle(id: "big-noise", mebibytes: 100, word: "breakwater")
        try f.writeCatalog(id: "corpussync-demo", try sampleCatalogCorpora() + [["id": "big-noise", "version": "1", "bundle": big, "access": "free"]],
                           embedders: [["id": "all-MiniLM-L6-v2", "source": f.work.url("no-model-here")]])
        let published = try f.publish(f.uploadOptions() + ["--json"])
        #expect(published.status == 0, "\(published.stdout)\n\(published.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])
        let upload = try #require(out["upload"] as? [String: Any])
        let uploaded = try #require(upload["uploaded"] as? [String])
        #expect(uploaded.last == "tree/catalog.json")
        #expect(uploaded.contains("private-tree/" + (try f.bundlePath("orbital-mechanics-primer"))))
        #expect(!uploaded.contains("tree/" + (try f.bundlePath("orbital-mechanics-primer"))))
        #expect(!(published.stdout + published.stderr).contains(f.store.secretKey))

        // Anonymous readers: the public tree yes, the private prefix no.
        let entitledKey = "private-tree/" + (try f.bundlePath("orbital-mechanics-primer"))
        #expect(try f.store.curl(["-o", "/dev/null", "\(f.publicURL)/catalog.json"], signed: false).stdout == "200")
        #expect(try f.store.curl(["-o", "/dev/null", "\(f.store.endpoint)/\(ObjectStoreFixture.bucket)/\(entitledKey)"], signed: false).stdout == "403")
        let head = try ProcessRunner.run("curl", ["-s", "-I", "\(f.publicURL)/\(try f.bundlePath("big-noise"))"]).stdout.lowercased()
        #expect(head.contains("cache-control: public, max-age=31536000, immutable"))
        #expect(try ProcessRunner.run("curl", ["-s", "-I", "\(f.publicURL)/catalog.json"]).stdout.lowercased().contains("cache-control: no-cache"))

        // 1. Straight from the bucket, `corpus remote add` unchanged.
        let direct = IntegrationClient("direct")
        try direct.must(["remote", "add", "sample", f.publicURL, "--trust", f.rootPub])
        let installed = try direct.run(["install", "field-guide-tides", "big-noise", "docs"], timeout: 300)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(try direct.run(["verify"], timeout: 300).status == 0)
        let hits = IntegrationHit.hits(try direct.json(["search", "tidal streams", "--corpus", "field-guide-tides"]).object)
        #expect(hits.first?.corpus == "field-guide-tides")
        // Without a gate, the entitled corpus is not there for anyone (the private prefix refuses).
        #expect(try direct.run(["install", "orbital-mechanics-primer"]).status != 0)

        // 2. Through nginx as an edge cache in front of the bucket: the second client's bundle
        // comes from the cache, the pointer is always revalidated.
        let edge = try EdgeCacheNginx(upstream: f.store.endpoint, prefix: "/\(ObjectStoreFixture.bucket)/tree", packageRoot: ObjectStoreFixture.packageRoot)
        for label in ["edge-1", "edge-2"] {
            let client = IntegrationClient(label)
            try client.must(["remote", "add", "sample", edge.url, "--trust", f.rootPub])
            let r = try client.run(["install", "big-noise", "sourdough-handbook"], timeout: 300)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try client.run(["verify"], timeout: 300).status == 0)
        }
        let log = (try? String(contentsOfFile: edge.runtime.url("access.log"), encoding: .utf8)) ?? ""
        let bigLines = log.split(separator: "\n").filter { $0.contains(try! f.bundlePath("big-noise")) }
        #expect(bigLines.count >= 2 && bigLines.last!.contains("cache=HIT"), "\(log)")
        #expect(!log.split(separator: "\n").contains { $0.contains("/catalog.json\"") && $0.contains("cache=HIT") }, "\(log)")

        // 3. The gate: entitled downloads become presigned redirects; the client follows them to the
        // store it names, without the token.
        let gate = try ServerProcess(BuiltProducts.corpusd, ["serve", f.tree, "--listen", "127.0.0.1:{PORT}", "--entitlement-pub", f.entitlementPub,
                                                            "--gate-only", "--private", "s3://\(ObjectStoreFixture.bucket)/private-tree",
                                                            "--endpoint", f.store.endpoint, "--public-url", f.publicURL, "--presign-expires", "2m"],
                                     environment: f.environment)
        defer { gate.stop() }
        let shop = IntegrationClient("gated")
        try shop.must(["remote", "add", "shop", gate.url, "--storage", f.store.endpoint, "--trust", f.rootPub])
        let before = shop.snapshot
        let refused = try shop.run(["install", "orbital-mechanics-primer"])
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(shop.snapshot == before)
        let token = try f.token(tier: "pro")
        let granted = try shop.run(["install", "orbital-mechanics-primer", "field-guide-tides", "--token", token], timeout: 300)
        #expect(granted.status == 0, "\(granted.stderr)")
        #expect(try shop.run(["verify"]).status == 0)
        // The gate served no bundle byte and logged no presigned URL or token.
        #expect(gate.stderr.contains("\" 302 "), "\(gate.stderr)")
        #expect(!gate.stderr.contains("X-Amz-Signature") && !gate.stderr.contains(token) && !gate.stderr.contains(f.store.secretKey))
        let catalogTwice = try ProcessRunner.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                                                          "-H", "Authorization: Bearer \(token)", "\(gate.url)/\(try f.bundlePath("orbital-mechanics-primer"))"])
        #expect(catalogTwice.stdout.hasPrefix("302 \(f.store.endpoint)/\(ObjectStoreFixture.bucket)/private-tree/bundles/"))
        #expect(catalogTwice.stdout.contains("X-Amz-Expires=120"))
    }
}
