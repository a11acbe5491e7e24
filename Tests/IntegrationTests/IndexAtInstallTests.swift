import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// Bundles whose pack ships without its FTS5 index (docs/format.md "Index built at install"):
/// smaller than the default bundle of the same documents, installed with the index built in
/// staging, searched by words like any other, checked by `verify` (a flipped byte is noticed). Since
/// it is the default, DeltaUpdateTests and DeltaSameAnswersTests update such corpora by delta; the
/// delta test here keeps `--index bundle` corpora (format 1) updating by delta too.
@Suite struct IndexAtInstallTests {
    @Test func aBundleWithoutItsIndexIsSmallerInstallsAndSearchesByWords() throws {
        let work = TempDirectory("index-at-install")
        for (path, text) in PublishedCorpusTree.documents("tidewater harbour", count: 6, paragraphs: 6, seed: 9) { try work.write("src/\(path)", text) }
        _ = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", work.path, "--name", "k"])
        for (name, extra) in [("indexed", ["--index", "bundle"]), ("noindex", ["--index", "install"])] {
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", work.url("src"), "--id", "tides", "--version", "1", "--key", work.url("k.key"),
                                                                  "--out", work.url("\(name).corpus.zip"), "--quiet"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let wrong = try ProcessRunner.run(BuiltProducts.corpusd, ["build", work.url("src"), "--id", "tides", "--version", "1", "--key", work.url("k.key"),
                                                                  "--out", work.url("x.corpus.zip"), "--index", "nowhere"])
        #expect(wrong.status == 2 && wrong.stderr.contains("--index \"nowhere\" is not bundle or install"), "\(wrong.stderr)")
        let manifest = try BundleReader(path: work.url("noindex.corpus.zip")).manifest(trustedKeys: [try PublicKey(contentsOf: work.url("k.pub"))]).manifest
        #expect(manifest.format == 2 && manifest.index == .install && manifest.rowsDigest != nil)
        #expect(try #require(FileIO.fileSize(work.url("noindex.corpus.zip"))) < (try #require(FileIO.fileSize(work.url("indexed.corpus.zip")))))

        let client = PublishedTreeClient()
        let imported = try client.run(["import", work.url("noindex.corpus.zip"), "--trust", work.url("k.pub")])
        #expect(imported.status == 0, "\(imported.stderr)")
        let reference = PublishedTreeClient()
        #expect(try reference.run(["import", work.url("indexed.corpus.zip"), "--trust", work.url("k.pub")]).status == 0)
        let hits = try DeltaFixture.hits(client, "tidewater harbour paragraph", lexicalOnly: true)
        #expect(!hits.isEmpty)
        for q in ["tidewater harbour paragraph", "anchor compass", "note 4 of paragraph 2"] {
            let a = try DeltaFixture.hits(client, q, lexicalOnly: true), b = try DeltaFixture.hits(reference, q, lexicalOnly: true)
            #expect(a.map(\.0) == b.map(\.0) && zip(a, b).allSatisfy { abs($0.1 - $1.1) <= 1e-9 * max(1, abs($0.1)) }, "\(q)")
        }
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(client.home)/corpora/local/tides/current/install.json"))) as? [String: Any]
        #expect((record?["local_pack"] as? [String: Any])?["pack_sha256"] is String)
        #expect(try client.run(["verify"]).status == 0)
        try flipByte("\(client.home)/corpora/local/tides/current/pack.sqlite")
        let verify = try client.json(["verify"])
        #expect(verify.result.status == 3 && verify.result.stdout.contains("pack.sqlite"), "\(verify.result.stdout)")
    }

    @Test func aCorpusWhosePackShipsWithItsIndexIsUpdatedByDelta() throws {
        let f = try DeltaFixture(index: { _ in "bundle" })
        #expect(try DeltaFixture.result(f.client.json(["sync"]))["via"] as? String == "delta")
        let fresh = PublishedTreeClient()
        try fresh.addRemote(f.server.url, trust: f.tree.rootPub)
        #expect(try fresh.run(["install", "tides"]).status == 0)
        try DeltaFixture.expectSameAnswers(f.client, fresh, queries: DeltaUpdateTests.queries)
        #expect(try f.client.run(["verify"]).status == 0)
    }
}
