import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// The index built at install is the default (issue 14: the bundle is made for the download):
/// `corpusd build` and a catalog entry without `index` ship the pack without its FTS5 index
/// (format 2), `--index bundle` keeps the index in the pack (format 1). Both installs answer every
/// query alike, to the bit, and a tree that published format-1 bundles before moves to the default
/// by delta.
@Suite struct DefaultIndexTests {
    static func build(_ work: TempDirectory, _ name: String, _ extra: [String]) throws -> Manifest {
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", work.url("src"), "--id", "charts", "--version", "1", "--key", work.url("k.key"),
                                                              "--out", work.url("\(name).corpus.zip"), "--quiet"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return try BundleReader(path: work.url("\(name).corpus.zip")).manifest(trustedKeys: [try PublicKey(contentsOf: work.url("k.pub"))]).manifest
    }

    @Test func corpusdBuildLeavesTheIndexToTheClientUnlessToldBundle() throws {
        let work = TempDirectory("default-index")
        for (path, text) in DeltaFixture.sectioned(version: 1, count: 60, sections: 40) { try work.write("src/\(path)", text) }
        _ = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", work.path, "--name", "k"])
        let standard = try Self.build(work, "default", [])
        _ = try Self.build(work, "install", ["--index", "install"])
        let bundle = try Self.build(work, "bundle", ["--index", "bundle"])
        #expect(standard.format == 2 && standard.index == .install && standard.rowsDigest != nil, "\(standard.format) \(String(describing: standard.index))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.url("default.corpus.zip"))) == Data(contentsOf: URL(fileURLWithPath: work.url("install.corpus.zip"))))
        #expect(bundle.format == 1 && bundle.index == nil)
        #expect(standard.content == bundle.content && standard.rowsDigest == bundle.rowsDigest)
        #expect(try #require(FileIO.fileSize(work.url("default.corpus.zip"))) < (try #require(FileIO.fileSize(work.url("bundle.corpus.zip")))))

        // Same queries, same passages, same order, same scores: exactly, fused and lexical only.
        let installed = PublishedTreeClient(), indexed = PublishedTreeClient()
        #expect(try installed.run(["import", work.url("default.corpus.zip"), "--trust", work.url("k.pub")]).status == 0)
        #expect(try indexed.run(["import", work.url("bundle.corpus.zip"), "--trust", work.url("k.pub")]).status == 0)
        for q in DeltaSameAnswersTests.queries {
            for lexical in [false, true] {
                let a = try DeltaFixture.hits(installed, q, lexicalOnly: lexical), b = try DeltaFixture.hits(indexed, q, lexicalOnly: lexical)
                #expect(!a.isEmpty, "no hits for \(q)")
                #expect(a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1), "\(q) (lexical only: \(lexical)):\n\(a)\n\(b)")
            }
        }
        #expect(try installed.run(["verify"]).status == 0)
        #expect(try indexed.run(["verify"]).status == 0)
    }

    @Test func aTreeOfFormatOneBundlesMovesToTheDefaultByDelta() throws {
        let f = try DeltaFixture(index: { $0 == 1 ? "bundle" : nil })
        let keys = [try PublicKey(contentsOf: f.tree.rootPub)]
        let entry = try f.entry()
        let next = try BundleReader(path: "\(f.tree.publicDir)/\(entry.bundle.path)").manifest(trustedKeys: keys).manifest
        #expect(next.format == 2 && next.index == .install, "catalog entry without index published format \(next.format)")
        let sync = try DeltaFixture.result(f.client.json(["sync"]))
        #expect(sync["via"] as? String == "delta", "\(sync)")
        let fresh = PublishedTreeClient()
        try fresh.addRemote(f.server.url, trust: f.tree.rootPub)
        #expect(try fresh.run(["install", "tides"]).status == 0)
        try DeltaFixture.expectSameAnswers(f.client, fresh, queries: DeltaUpdateTests.queries)
        #expect(try f.client.run(["verify"]).status == 0)
        #expect(try fresh.run(["verify"]).status == 0)
    }
}

/// An import (`--from`) keeps its pack's index whatever the default: format 1 without `--index`,
/// and `--index install` with `--from` is a usage error that writes nothing.
@Suite struct ImportIndexDefaultTests {
    @Test func anImportKeepsItsIndexAndRefusesIndexInstall() throws {
        let run = try ImportCLIRun()
        try ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 4).write(to: run.work.url("reader.corpus.zip"))
        let built = try run.build(run.work.url("reader.corpus.zip"), from: "corpuskit", id: "quill")
        #expect(built.result.status == 0, "\(built.result.stderr)")
        let manifest = try BundleReader(path: built.bundle).manifest(trustedKeys: [try PublicKey(contentsOf: run.pub)]).manifest
        #expect(manifest.format == 1 && manifest.index == nil)
        let refused = try run.build(run.work.url("reader.corpus.zip"), from: "corpuskit", id: "quill2", extra: ["--index", "install"])
        #expect(refused.result.status == 2, "\(refused.result.stderr)")
        // `--json`: the error is the JSON object on stdout.
        let said = refused.result.stdout + refused.result.stderr
        #expect(said.contains(#"--index \"install\" cannot be used with --from: an import keeps its pack's full-text index"#)
                || said.contains(#"--index "install" cannot be used with --from: an import keeps its pack's full-text index"#), "\(said)")
        #expect(!FileIO.exists(refused.bundle))
    }
}
