import Foundation
import Testing
import CorpusTestSupport
@testable import CorpusPublisher

@Suite struct IngestFolderTests {
    @Test func plainTextTitleAndParagraphs() {
        let doc = IngestText.document(path: "notes/tides.txt", text: "Tide notes\n\nFirst paragraph\nwraps here.\r\n\r\nSecond one.\n")
        #expect(doc.title == "Tide notes")
        #expect(doc.sections.map(\.paragraphs) == [["First paragraph wraps here.", "Second one."]])
        let untitled = IngestText.document(path: "notes/tides.txt", text: "A first paragraph that runs\nover two lines.\n\nMore.")
        #expect(untitled.title == "tides")
        #expect(untitled.sections[0].paragraphs.count == 2)
    }

    @Test func walksSortedSkipsDotfilesAndReportsUnreadableFiles() throws {
        let dir = TempDirectory("ingest")
        try dir.write("b.md", "# B\n\nbee")
        try dir.write("a/z.txt", "Z\n\nzed")
        try dir.write("a.txt", "A\n\nay")
        try dir.write(".hidden.md", "# Hidden\n\nsecret")
        try dir.write(".git/config.md", "# Git\n\nnot content")
        try dir.write("image.png", Data([0x89, 0x50, 0x4e, 0x47]))
        try dir.write("binary.txt", Data([0x48, 0x69, 0x00, 0x01, 0x02]))
        try dir.write("latin1.txt", Data([0x63, 0x61, 0x66, 0xe9]))
        try dir.write("empty.md", "\n\n")
        try dir.write("broken.epub", "this is not a zip")

        let result = try Ingest.folder(dir.path)
        #expect(result.documents.map(\.path) == ["a.txt", "a/z.txt", "b.md"])
        let skipped = Dictionary(uniqueKeysWithValues: result.skipped.map { ($0.path, $0.reason) })
        #expect(skipped.keys.sorted() == ["binary.txt", "broken.epub", "empty.md", "image.png", "latin1.txt"])
        #expect(skipped["binary.txt"] == "binary data (NUL bytes), not text")
        #expect(skipped["latin1.txt"] == "not valid UTF-8 text")
        #expect(skipped["image.png"] == "unsupported file type")
        #expect(skipped["empty.md"] == "no text")
        #expect(skipped["broken.epub"]?.hasPrefix("corrupt EPUB: not a readable zip archive") == true)
    }

    @Test func epubChaptersFollowTheSpine() throws {
        let dir = TempDirectory("epub")
        try PublisherFixtures.writeEPUB(dir.url("books/voyage.epub"), title: "The Voyage", chapters: [
            ("text/one.xhtml", PublisherFixtures.xhtml(title: "Departure", body: "<h1>Departure</h1><p>We left at dawn &amp; sailed.</p>")),
            ("text/two.xhtml", PublisherFixtures.xhtml(title: "The Voyage", body: "<h2>Storm</h2><p>Waves r&eacute;sist.</p>")),
            ("text/three.xhtml", PublisherFixtures.xhtml(title: "Arrival", body: "<p>Land ho.</p>")),
        ])
        let result = try Ingest.folder(dir.path)
        #expect(result.skipped.isEmpty)
        #expect(result.documents.map(\.path) == ["books/voyage.epub#OEBPS/text/one.xhtml", "books/voyage.epub#OEBPS/text/two.xhtml",
                                                 "books/voyage.epub#OEBPS/text/three.xhtml"])
        #expect(result.documents.map(\.title) == ["The Voyage — Departure", "The Voyage", "The Voyage — Arrival"])
        #expect(result.documents[0].sections[0].paragraphs == ["We left at dawn & sailed."])
        #expect(result.documents[1].sections[0].path == "Storm")
        #expect(result.documents[1].sections[0].paragraphs == ["Waves résist."])
    }

    @Test func epubMissingItsPackageFileIsSkipped() throws {
        let dir = TempDirectory("epub-bad")
        try PublisherFixtures.writeZip(dir.url("bad.epub"), members: [("mimetype", "application/epub+zip"),
                                                                      ("META-INF/container.xml", "<container><rootfiles/></container>")])
        try dir.write("ok.md", "# Ok\n\ntext")
        let result = try Ingest.folder(dir.path)
        #expect(result.documents.map(\.path) == ["ok.md"])
        #expect(result.skipped == [SkippedFile(path: "bad.epub", reason: "corrupt EPUB: META-INF/container.xml names no package file")])
    }

    @Test(arguments: [
        ("OEBPS", "ch1.xhtml", "OEBPS/ch1.xhtml"),
        ("OEBPS", "../ch1.xhtml", "ch1.xhtml"),
        ("", "text/ch%201.xhtml#frag", "text/ch 1.xhtml"),
        ("OEBPS", "../../etc/passwd", nil),
        ("OEBPS", "/abs.xhtml", nil),
    ] as [(String, String, String?)])
    func epubHrefsResolveInsideTheBook(base: String, href: String, expected: String?) {
        #expect(IngestEPUB.resolve(href, base: base) == expected)
    }

    @Test func missingFolderIsAnError() {
        #expect(throws: PublisherError.sourceNotFound(path: "/nonexistent/folder")) { try Ingest.folder("/nonexistent/folder") }
    }
}
