import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport

/// Reading a document through the engine: another app's overlapping chunks read without the
/// shared words, a build's passages joined exactly, large documents in bounded pages that join
/// back into the whole, and refusals of what no pack holds, each with its own error and nothing
/// on disk touched.
@Suite struct DocumentReadTests {
    /// Words `w0 w1 …`: every word its own, so a repeated word in a read is a repeated overlap.
    static func words(_ range: Range<Int>) -> [String] { range.map { "w\($0)" } }

    /// A chapter of 200 words cut into windows of 60 words, each starting with the last 15 of the
    /// one before, and one chunk lying wholly inside the chunk before it; ids are the source's.
    static func overlapping(home: String) throws -> (chapter: String, chunks: [String]) {
        let all = words(0..<200)
        var chunks: [String] = []
        var start = 0
        while start < all.count {
            chunks.append(all[start..<min(all.count, start + 60)].joined(separator: " "))
            if start == 45 { chunks.append(all[80..<95].joined(separator: "\n")) }
            start += 45
        }
        var fixture = PackFixture(id: "chunks", documents: [
            .init(path: "ch1", title: "Chapter one", passages: chunks.map { .init(section: "Opening", $0) }),
        ])
        fixture.tamperSQL = ["INSERT INTO meta(key, value) VALUES('passage_ids', 'source')"]
        try fixture.install(home: home)
        return (all.joined(separator: " "), chunks)
    }

    @Test func anotherAppsOverlappingChunksReadOnceEachAtARangeHoldingThem() async throws {
        let dir = TempDirectory("read-overlap")
        let (chapter, chunks) = try Self.overlapping(home: dir.path)
        let browser = LocalBrowser(library: CorpusLibrary(home: dir.path))
        let read = try await browser.readToEnd(corpus: "chunks", document: "ch1")
        #expect(read.sections.count == 1 && read.sections[0].title == "Opening")
        let section = try #require(read.sections.first)
        #expect(ReadText.normalised(section.text) == chapter, "no word twice: the overlaps are cut")
        #expect(section.passages.count == chunks.count)
        for (p, chunk) in zip(section.passages, chunks) {
            #expect(ReadText.normalised(ReadText.slice(section.text, p.start, p.end)) == ReadText.normalised(chunk), "\(p)")
        }
    }

    @Test func aBuildsPassagesAreJoinedAsStoredEvenWhereWordsRepeatAtTheJoin() async throws {
        let dir = TempDirectory("read-exact")
        let first = "The tide turns at the end of the day", second = "the end of the day brings the fog in."
        try PackFixture(id: "exact", texts: ["log.md": [first, second]]).install(home: dir.path)
        let read = try await LocalBrowser(library: CorpusLibrary(home: dir.path)).readToEnd(corpus: "exact", document: "log.md")
        #expect(read.sections.map(\.text) == [first + "\n\n" + second])
        #expect(read.sections[0].passages.map { [$0.start, $0.end] } == [[0, 36], [38, 75]])
    }

    @Test func aLargeDocumentComesInBoundedPagesThatJoinIntoTheWhole() async throws {
        let dir = TempDirectory("read-pages")
        let texts = (0..<300).map { n in Self.words(n * 100..<(n * 100 + 100)).joined(separator: " ") + "." }
        let sections = ["Part one", "Part two"]
        try PackFixture(id: "big", documents: [
            .init(path: "book.md", title: "Book", passages: texts.enumerated().map { .init(section: sections[$0.offset / 200], $0.element) }),
        ]).install(home: dir.path)
        let corpus = try LocalBrowser(library: CorpusLibrary(home: dir.path)).open("big")
        let first = try corpus.read(document: "book.md")
        let length = first.sections.reduce(0) { $0 + $1.text.unicodeScalars.count }
        #expect(length <= InstalledCorpus.pageCharacters && length > InstalledCorpus.pageCharacters - 1000)
        let next = try #require(first.next)
        #expect(!first.sections.flatMap(\.passages).contains { $0.id == next })
        var pages = 1
        var whole = first
        while let from = whole.next {
            let page = try corpus.read(document: "book.md", from: from)
            #expect(page.sections.first?.passages.first?.id == from)
            whole.append(page)
            pages += 1
        }
        #expect(pages == 4, "207,000 characters in pages of 65,536")
        let single = try corpus.read(document: "book.md", characters: InstalledCorpus.maxPageCharacters)
        #expect(single.next == nil && whole == single, "pages joined are the document read in one")
        #expect(whole.sections.map(\.title) == sections && whole.sections.map(\.passages.count) == [200, 100])
        // Landing on a passage far into a section: the page holds it, starting within half a page before it.
        let target = whole.sections[0].passages[150]
        let landed = try corpus.read(document: "book.md", at: target.id)
        #expect(landed.sections.first?.title == "Part one" && landed.sections.first?.continues == true)
        let before = try #require(landed.sections.first?.passages.firstIndex { $0.id == target.id })
        #expect(before > 0 && before * 590 <= InstalledCorpus.pageCharacters / 2 + 590)
        let location = try corpus.locate(passage: target.id)
        #expect(location.position == 150 && location.section == "Part one" && location.document == "book.md")
    }

    @Test func whatNoPackHoldsIsRefusedWithItsOwnErrorAndNothingChanges() async throws {
        let dir = TempDirectory("read-refusals")
        try PackFixture(id: "plain", texts: ["a.md": ["alpha passage"], "b.md": ["beta passage"]]).install(home: dir.path)
        let browser = LocalBrowser(library: CorpusLibrary(home: dir.path))
        let other = try await browser.read(corpus: "plain", document: "b.md", at: nil, from: nil).sections[0].passages[0].id
        let before = DirectorySnapshot(dir.path)
        let long = String(repeating: "a", count: 10_240)
        let cases: [(String, String?, EngineError)] = [
            ("..", nil, .invalidBrowseRequest("a document path has no empty, . or .. segment")),
            ("../../etc/passwd", nil, .invalidBrowseRequest("a document path has no empty, . or .. segment")),
            ("/etc/passwd", nil, .invalidBrowseRequest("a document path is relative to its corpus, not absolute")),
            ("a.md\0.txt", nil, .invalidBrowseRequest("a document path holds no control characters")),
            (long, nil, .invalidBrowseRequest("a document path is at most 1024 bytes (this one is 10240)")),
            ("a\\b.md", nil, .invalidBrowseRequest("a document path is '/'-separated, without backslashes")),
            ("", nil, .invalidBrowseRequest("a document path is not empty")),
            ("c.md", nil, .documentNotFound(corpus: "local/plain", document: "c.md")),
            ("a.md", other, .passageNotFound(corpus: "local/plain", passage: other, document: "a.md")),
            ("a.md", "x\u{1b}[2J", .invalidBrowseRequest("a passage id holds no control characters")),
        ]
        for (path, at, expected) in cases {
            await #expect(throws: expected, "\(path.prefix(20))") { try await browser.read(corpus: "plain", document: path, at: at, from: nil) }
        }
        await #expect(throws: EngineError.corpusNotFound("nosuch")) { try await browser.documents(corpus: "nosuch", from: nil) }
        await #expect(throws: EngineError.documentNotFound(corpus: "local/plain", document: "z.md")) { try await browser.documents(corpus: "plain", from: "z.md") }
        #expect(DirectorySnapshot(dir.path) == before)
    }
}
