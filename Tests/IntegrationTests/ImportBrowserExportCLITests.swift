import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd build export.zip --from lumen` through the real binaries, on a generated browser
/// export: each page a document split into passages like any Markdown file, its url, domain,
/// timestamp (in whatever spelling the export used, kept in one), summary and word count document
/// metadata, its highlights rows tied to the passage that holds them; the per-page embeddings
/// dropped; the bundle installs and answers searches.
@Suite struct ImportBrowserExportCLITests {
    @Test func tenThousandPassagesOfSavedPagesBecomeABundleThatInstallsAndAnswers() throws {
        let run = try ImportCLIRun()
        let fixture = BrowserExportFixture(pages: 1000, paragraphsPerPage: 10)
        let source = run.work.url("library-export.zip")
        try fixture.write(to: source)
        let built = try run.build(source, from: "lumen", id: "reading")
        try #require(built.result.status == 0, "\(built.result.stderr)")
        #expect(built.object["passages"] as? Int == 10_000 && built.object["documents"] as? Int == 1000, "\(built.result.stdout)")
        #expect(built.embedder["id"] as? String == "hash-uni-bi-384-v1")
        #expect(built.imported["vectors"] as? String == "embedded" && built.imported["source_vectors"] == nil, "\(built.imported)")
        let notes = built.imported["notes"] as? [String] ?? []
        #expect(notes.contains("dropped the pages' embeddings: one vector per page does not score a passage; the passages are embedded here"), "\(notes)")

        let imported = try run.importBundle(built.bundle)
        try #require(imported.status == 0, "\(imported.stderr)")
        let pack = run.installedPack("reading")
        #expect(try SQLiteShell.rows(pack, "SELECT path, title FROM documents WHERE id = 538") == ["pages/p537.md|Saved page 537"])
        #expect(try SQLiteShell.rows(pack, "SELECT key, value FROM document_meta WHERE document_id = 538 ORDER BY key") == [
            "domain|news.example.org", "source_id|p537", "summary|A page about the \(ReaderAppFixture.vocabulary[537 % 32]).",
            "timestamp|\(BrowserExportFixture.canonicalTimestamps[537 % 3])", "url|https://news.example.org/537/article", "word_count|1100",
        ])
        // The three spellings of a time (an offset, Unix seconds, Unix milliseconds) in one.
        #expect(try SQLiteShell.rows(pack, "SELECT value FROM document_meta WHERE key = 'timestamp' AND document_id <= 3 ORDER BY document_id")
                == BrowserExportFixture.canonicalTimestamps)

        // A highlight is tied to the passage holding its text; one no passage holds keeps its page only.
        let marker = BrowserExportFixture.marker(page: 0, paragraph: 1)
        #expect(try SQLiteShell.rows(pack, """
            SELECT h.document_id, coalesce(p.text LIKE '%\(marker)%', 'none'), coalesce(h.created, 'none'), length(h.prefix) > 0
            FROM highlights h LEFT JOIN passages p ON p.id = h.passage_id ORDER BY h.id
            """) == ["1|1|2026-02-28T08:00:00Z|1", "1|none|none|0"])

        let hits = try run.search(BrowserExportFixture.marker(page: 537, paragraph: 4), corpus: "reading")
        #expect(hits.first?["document"] as? String == "pages/p537.md" && hits.first?["title"] as? String == "Saved page 537", "\(hits.prefix(2))")
        #expect(hits.first?["text"] as? String == fixture.paragraph(page: 537, 4))
    }
}
