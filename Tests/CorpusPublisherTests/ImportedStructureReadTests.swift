import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
import CorpusPublisher

/// Each app's export, imported by the real importer and read back through the engine: the app's
/// own structure is what a reader browses (the reader app's chapters in their order, the knowledge
/// app's books with their genres and chapters, the browser's pages with their websites and times),
/// each document reads as its source text without repeated overlap, and every passage is placed
/// once at a range holding its text (docs/import.md "Browsing an import").
@Suite struct ImportedStructureReadTests {
    /// Every passage of corpus `id` is placed exactly once, in its own document and section, at a
    /// range of the section's text that holds its stored text; the reads by document path.
    static func readAll(_ h: BuiltHome, _ id: String) async throws -> [String: DocumentText] {
        let browser = LocalBrowser(library: CorpusLibrary(home: h.home))
        let stored = try h.passages(id)
        var reads: [String: DocumentText] = [:]
        var placed: [String: Int] = [:]
        for d in try await browser.documents(corpus: id, from: nil).documents {
            let read = try await browser.readToEnd(corpus: id, document: d.path)
            reads[d.path] = read
            for section in read.sections {
                for p in section.passages {
                    placed[p.id, default: 0] += 1
                    let passage = try #require(stored.first { $0.pid == p.id })
                    #expect(passage.document == d.path && passage.section == section.title)
                    #expect(ReadText.normalised(ReadText.slice(section.text, p.start, p.end)) == ReadText.normalised(passage.text), "\(p.id)")
                }
            }
        }
        #expect(Set(placed.keys) == Set(stored.map(\.pid)) && placed.values.allSatisfy { $0 == 1 }, "\(id): every passage once")
        return reads
    }

    @Test func theReaderAppsChaptersReadInOrderAsTheTextTheirChunksWereCutFrom() async throws {
        let h = try BuiltHome()
        let fixture = ReaderAppFixture.generated(chapters: 3, chunksPerChapter: 5)
        try fixture.write(to: h.dir.url("tides.corpus.zip"))
        try h.import(h.dir.url("tides.corpus.zip"), from: .corpuskit, id: "tides")
        let listing = try await LocalBrowser(library: CorpusLibrary(home: h.home)).documents(corpus: "tides", from: nil)
        #expect(listing.documents.map(\.path) == fixture.chapters.map(\.id))
        #expect(listing.documents.map(\.title) == fixture.chapters.map(\.title))
        let reads = try await Self.readAll(h, "tides")
        for chapter in fixture.chapters {
            #expect(BuiltHome.text(try #require(reads[chapter.id])) == fixture.chapterWords[chapter.id]!.joined(separator: " "), "\(chapter.id)")
        }
    }

    @Test func theKnowledgeAppsBooksKeepTheirGenresAndChapters() async throws {
        let h = try BuiltHome()
        let fixture = KnowledgeAppFixture(books: 3, passagesPerBook: 25)
        try fixture.write(to: h.dir.url("Corpus"))
        try h.import(h.dir.url("Corpus"), from: .knowledgepress, id: "shelf")
        let listing = try await LocalBrowser(library: CorpusLibrary(home: h.home)).documents(corpus: "shelf", from: nil)
        let books = listing.documents.filter { $0.path.hasPrefix("gutenberg.pack#") }
        #expect(books.map(\.path) == ["gutenberg.pack#1000", "gutenberg.pack#1001", "gutenberg.pack#1002"])
        #expect(books.map(\.group) == ["Sea stories", "Almanacs", "Sea stories"])
        #expect(books.map(\.title) == (0..<3).map { "The Book of \(ReaderAppFixture.vocabulary[$0]) \($0)" })
        for (b, book) in books.enumerated() {
            #expect(book.sections.map(\.title) == ["Chapter 1", "Chapter 2", "Chapter 3"])
            #expect(book.sections.map(\.passage) == [0, 10, 20].map { KnowledgeAppFixture.passageID(book: b, passage: $0) })
            #expect(book.passages == 25)
        }
        let news = listing.documents.filter { $0.path.hasPrefix("news.pack#") }
        #expect(news.count == 3 && news.allSatisfy { $0.time != nil })
        let reads = try await Self.readAll(h, "shelf")
        let stored = try h.passages("shelf")
        for book in books {
            let texts = stored.filter { $0.document == book.path }.map(\.text)
            #expect(BuiltHome.text(try #require(reads[book.path])) == ReadText.normalised(texts.joined(separator: " ")))
        }
    }

    @Test func theBrowsersPagesKeepTheirWebsitesAndTimes() async throws {
        let h = try BuiltHome()
        let fixture = BrowserExportFixture(pages: 3, paragraphsPerPage: 12)
        try fixture.write(to: h.dir.url("export.zip"))
        try h.import(h.dir.url("export.zip"), from: .lumen, id: "saved")
        let listing = try await LocalBrowser(library: CorpusLibrary(home: h.home)).documents(corpus: "saved", from: nil)
        #expect(listing.documents.map(\.path) == ["pages/p0.md", "pages/p1.md", "pages/p2.md"])
        #expect(listing.documents.map(\.time) == BrowserExportFixture.canonicalTimestamps)
        #expect(listing.documents.allSatisfy { $0.group == "news.example.org" })
        let reads = try await Self.readAll(h, "saved")
        for p in 0..<3 {
            let read = try #require(reads["pages/p\(p).md"])
            #expect(read.title == "Saved page \(p)")
            #expect(BuiltHome.text(read) == (0..<12).map { fixture.paragraph(page: p, $0) }.joined(separator: " "))
        }
    }
}
