import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd build Corpus/ --from knowledgepress` through the real binaries, on a generated
/// knowledge-app folder: every passage of every pack keeps its id; books of `core.pack` become
/// documents with their author and genre, chapters sections, the dated pack's timestamps passage
/// and document metadata; the bge-small vectors are checked and dropped (no model folder was given
/// to embed queries with); the bundle installs and answers searches.
@Suite struct ImportKnowledgeAppCLITests {
    static let bge = "BAAI/bge-small-en-v1.5"

    @Test func tenThousandPassagesKeepEveryIdAndTheBundleInstallsAndAnswers() throws {
        let run = try ImportCLIRun()
        let fixture = KnowledgeAppFixture(books: 100, passagesPerBook: 100)
        let folder = run.work.url("Corpus")
        try fixture.write(to: folder)
        let built = try run.build(folder, from: "knowledgepress", id: "shelf")
        try #require(built.result.status == 0, "\(built.result.stderr)")
        #expect(built.object["passages"] as? Int == 10_006 && built.object["documents"] as? Int == 103, "\(built.result.stdout)")
        #expect(built.embedder["id"] as? String == "hash-uni-bi-384-v1", "\(built.embedder)")
        #expect(built.imported["vectors"] as? String == "embedded" && built.imported["source_vectors"] as? String == Self.bge, "\(built.imported)")
        let notes = built.imported["notes"] as? [String] ?? []
        #expect(notes.contains("kept the ids of all 10006 passages of 2 pack(s)"), "\(notes)")
        #expect(notes.contains("no news.vectors: the source's vectors do not cover every passage"), "\(notes)")
        #expect(notes.contains("vectors: the source's \(Self.bge) (384 dimensions) are not kept without the model to embed queries with; embedded with hash-uni-bi-384-v1 (give --embedder bge-small-en-v1.5 --model DIR to keep them)"), "\(notes)")
        let manifest = try run.manifest(built.bundle)
        #expect(manifest.title == "Gutenberg shelf" && manifest.embedder == EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8"))

        let imported = try run.importBundle(built.bundle)
        try #require(imported.status == 0, "\(imported.stderr)")
        let pack = run.installedPack("shelf")
        // Every passage id of the source, each once, and nothing else.
        let pids = try SQLiteShell.rows(pack, "SELECT pid FROM passages")
        #expect(pids.count == 10_006 && Set(pids) == Set(fixture.passageIDs))
        #expect(try SQLiteShell.rows(pack, "SELECT value FROM meta WHERE key = 'passage_ids'") == ["source"])
        #expect(try SQLiteShell.rows(pack, "SELECT path, title FROM documents WHERE id = 43") == ["gutenberg.pack#1042|The Book of pier 42"])
        #expect(try SQLiteShell.rows(pack, "SELECT key, value FROM document_meta WHERE document_id = 43 ORDER BY key")
                == ["author|Author 42", "genre|Sea stories", "pack|gutenberg", "source_id|1042"])
        #expect(try SQLiteShell.rows(pack, "SELECT section, ordinal FROM passages WHERE pid = 'pg1042-37'") == ["Chapter 4|37"])

        // The dated pack: each passage's time, and the document's, the latest of the pack's and its passages'.
        #expect(try SQLiteShell.rows(pack, """
            SELECT p.pid, m.value FROM passage_meta m JOIN passages p ON p.id = m.passage_id WHERE m.key = 'timestamp' ORDER BY p.pid
            """) == ["news-0|2026-03-01T07:30:00Z", "news-1|2026-03-07T16:13:20Z", "news-2|2026-03-09T00:00:00Z",
                     "news-3|2026-03-01T07:30:00Z", "news-4|2026-03-07T16:13:20Z", "news-5|2026-03-09T00:00:00Z"])
        #expect(try SQLiteShell.rows(pack, """
            SELECT d.path, m.value FROM document_meta m JOIN documents d ON d.id = m.document_id WHERE m.key = 'timestamp' ORDER BY d.path
            """) == ["news.pack#harbour-news-0|2026-03-01T07:30:00Z", "news.pack#harbour-news-1|2026-03-07T16:13:20Z",
                     "news.pack#harbour-news-2|2026-03-09T00:00:00Z"])

        let hits = try run.search(KnowledgeAppFixture.marker(book: 42, passage: 17), corpus: "shelf")
        #expect(hits.first?["passage"] as? String == "pg1042-17" && hits.first?["document"] as? String == "gutenberg.pack#1042", "\(hits.prefix(2))")
        #expect(hits.first?["title"] as? String == "The Book of pier 42")
        let news = try run.search("newsmark4", corpus: "shelf")
        #expect(news.first?["passage"] as? String == "news-4" && news.first?["title"] as? String == "Harbour news 1", "\(news.prefix(2))")
    }

    /// all-MiniLM-L6-v2 vectors in the folder are kept when the build embeds with that model;
    /// without it they are checked and the passages embedded with the hashing embedder.
    @Test(.enabled(if: ImportCLIRun.modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func vectorsOfTheModelThatEmbedsQueriesAreKept() throws {
        let run = try ImportCLIRun()
        var fixture = KnowledgeAppFixture(books: 3, passagesPerBook: 4)
        fixture.model = "sentence-transformers/all-MiniLM-L6-v2"
        fixture.withNews = false
        fixture.vectors = (0..<(12 * 384)).map { Int8(truncatingIfNeeded: ($0 * 7919) % 251 - 125) }
        let folder = run.work.url("Corpus")
        try fixture.write(to: folder)
        let kept = try run.build(folder, from: "knowledgepress", id: "mini", extra: ["--embedder", "all-MiniLM-L6-v2", "--model", ImportCLIRun.modelFolder])
        try #require(kept.result.status == 0, "\(kept.result.stderr)")
        #expect(kept.imported["vectors"] as? String == "kept" && kept.embedder["id"] as? String == "all-MiniLM-L6-v2", "\(kept.imported)")
        let rows = try VectorRows(bundle: kept.bundle, key: run.pub)
        // The pack's rows are in book and ordinal order, which is the source's row order here.
        for r in [0, 5, 11] {
            let source = fixture.vectors![(r * 384)..<((r + 1) * 384)].map { Float($0) }
            let norm = source.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(rows.row(r) == Int8Quantizer.quantize(source.map { $0 / norm }).values, "row \(r)")
        }
        let plain = try run.build(folder, from: "knowledgepress", id: "plain")
        try #require(plain.result.status == 0, "\(plain.result.stderr)")
        #expect(plain.imported["vectors"] as? String == "embedded" && plain.embedder["id"] as? String == "hash-uni-bi-384-v1")
    }
}
