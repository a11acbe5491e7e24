import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// The files keys by role add to a tree, served by their kin's rules: `timestamp.json` (and its
/// signature) like the pointer, revalidated every time and new the moment it is replaced; each
/// holder's root signature `keys/root-N.json.<KEYID>.minisig` like the root document, immutable.
@Suite struct FreshnessFilePolicyTests {
    @Test func theTimestampIsRevalidatedAndAHoldersRootSignatureAndCatalogPartsAreImmutable() throws {
        let f = try ServerFixture()
        let holder = try SecretKey.generate().keyID
        try f.tree.dir.write("timestamp.json", #"{"version":1}"#)
        try f.tree.dir.write("timestamp.json.minisig", "untrusted comment: t\n")
        try f.tree.dir.write("keys/root-1.json.\(holder).minisig", "untrusted comment: h\n")
        let cases: [(String, String, String)] = [
            ("/timestamp.json", "application/json", "no-cache"),
            ("/timestamp.json.minisig", "text/plain; charset=utf-8", "no-cache"),
            ("/keys/root-1.json.\(holder).minisig", "text/plain; charset=utf-8", "public, max-age=31536000, immutable"),
        ]
        for (target, type, cache) in cases {
            let r = try f.get(target)
            #expect(r.status == 200, "\(target)")
            #expect(r.header("Content-Type") == type && r.header("Cache-Control") == cache, "\(target): \(r.header("Cache-Control") ?? "-")")
        }
        // Catalog parts (docs/format.md "Catalog parts") are content-addressed and compressed
        // inside: immutable, served as stored (no Content-Encoding); top documents are immutable
        // like the numbered catalogs they sit beside.
        let part = String(repeating: "ab", count: 32)
        try f.tree.dir.write("parts/\(part).json.gz", Data([0x1f, 0x8b]))
        try f.tree.dir.write("catalogs/1.top.json", #"{"format":2}"#)
        for (target, type) in [("/parts/\(part).json.gz", "application/gzip"), ("/catalogs/1.top.json", "application/json")] {
            let r = try f.get(target)
            #expect(r.status == 200 && r.header("Content-Type") == type && r.header("Content-Encoding") == nil, "\(target)")
            #expect(r.header("Cache-Control") == "public, max-age=31536000, immutable", "\(target): \(r.header("Cache-Control") ?? "-")")
        }
        // A cron run replaces it by rename: the next GET has the new one, as for catalog.json.
        _ = try f.get("/timestamp.json")
        try FileIO.writeAtomically(Data(#"{"version":2}"#.utf8), to: f.tree.dir.url("timestamp.json"))
        #expect(try f.get("/timestamp.json").body == Data(#"{"version":2}"#.utf8))
    }
}
