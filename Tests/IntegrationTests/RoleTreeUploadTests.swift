import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// A tree with roles uploaded to a real SeaweedFS: each holder's root signature goes up before the
/// root document it signs and is cached as immutable as it; `timestamp.json` goes up after every
/// catalog, just before the pointer, and is revalidated like it.
@Suite struct RoleTreeUploadTests {
    @Test func holderSignaturesPrecedeTheirRootAndTheTimestampPrecedesThePointer() throws {
        let f = try ObjectStoreFixture()
        for name in ["holder0", "holder1", "catalog", "timestamp"] { try f.corpusdMust(["keygen", "--out", f.work.url("keys"), "--name", name]) }
        let draft = f.work.url("root-1.json")
        try f.corpusdMust(["root", "draft", "--out", draft, "--root-key", f.work.url("keys/holder0.pub"), "--root-key", f.work.url("keys/holder1.pub"),
                           "--root-threshold", "2", "--catalog-key", f.work.url("keys/catalog.pub"), "--timestamp-key", f.work.url("keys/timestamp.pub")])
        for h in ["holder0", "holder1"] { try f.corpusdMust(["root", "sign", draft, "--key", f.work.url("keys/\(h).key")]) }
        try f.corpusdMust(["root", "publish", draft, "--out", f.tree])
        try f.work.write("catalog/tides/a.md", "# Tides\n\nSpring tides follow the full moon.\n")
        try f.writeCatalog([["id": "tides", "version": "1", "source": "tides", "access": "free"]])
        try f.corpusdMust(["publish", f.catalogDir, "--out", f.tree, "--key", f.work.url("keys/catalog.key"),
                           "--timestamp-key", f.work.url("keys/timestamp.key")])

        let recorder = try RelayProxy(upstreamPort: f.store.s3Port)
        let upload = try f.corpusd(["upload", f.tree] + f.uploadOptions(endpoint: recorder.url))
        recorder.stop()
        #expect(upload.status == 0, "\(upload.stderr)")
        let puts = recorder.requestLines.filter { $0.hasPrefix("PUT ") }
        func index(_ suffix: String) throws -> Int { try #require(puts.firstIndex { $0.hasSuffix("/tree/\(suffix)") }, "\(suffix) in \(puts)") }
        let holders = try ["holder0", "holder1"].map { try PublicKey(contentsOf: f.work.url("keys/\($0).pub")).keyID }
        let root = try index("keys/root-1.json")
        for id in holders { #expect(try index("keys/root-1.json.\(id).minisig") < root, "\(puts)") }
        let timestamp = try index("timestamp.json"), signature = try index("timestamp.json.minisig"), pointer = try index("catalog.json")
        let catalog = try index("catalogs/1.json"), page = try index("index.html")
        #expect(catalog < timestamp && page < timestamp, "\(puts)")
        #expect(timestamp < pointer && signature < pointer, "\(puts)")

        func cacheControl(_ path: String) throws -> String? {
            let r = try ProcessRunner.run("curl", ["-s", "-f", "-I", "\(f.publicURL)/\(path)"])
            return r.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("cache-control:") }
                .map { String($0.dropFirst("cache-control:".count)).trimmingCharacters(in: .whitespaces) }
        }
        #expect(try cacheControl("timestamp.json") == "no-cache")
        #expect(try cacheControl("keys/root-1.json.\(holders[0]).minisig") == "public, max-age=31536000, immutable")
    }
}
