import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// What libxml2's HTML parser does with hostile structure: nesting past its depth limit is said
/// as such (it was skipped as "no text"), and a DOCTYPE's internal subset is not content (its text
/// was indexed).
@Suite struct HTMLParserLimitTests {
    static func nested(_ depth: Int, tag: String = "div", text: String = "Deepwords at the bottom.") -> String {
        "<html><body>" + String(repeating: "<\(tag)>", count: depth) + text + String(repeating: "</\(tag)>", count: depth) + "</body></html>"
    }

    @Test(arguments: [200_000, 300])
    func nestingPastTheParsersLimitIsSkippedAsTooDeep(depth: Int) throws {
        let dir = TempDirectory("html-depth")
        try dir.write("deep.html", Self.nested(depth))
        try dir.write("ok.html", Self.nested(100, text: "Shallowwords are fine."))
        let result = try Ingest.folder(dir.path)
        #expect(result.documents.map(\.path) == ["ok.html"])
        #expect(result.skipped == [SkippedFile(path: "deep.html", reason: "nesting too deep: libxml2 stops at 256 levels of elements")])
    }

    @Test func anEPUBChapterNestedTooDeepNamesTheChapter() throws {
        let dir = TempDirectory("epub-depth")
        try PublisherFixtures.writeEPUB(dir.url("book.epub"), title: "Book", chapters: [
            ("ch1.xhtml", PublisherFixtures.xhtml(title: "One", body: "<p>Fine.</p>")),
            ("ch2.xhtml", Self.nested(1000)),
        ])
        let result = try Ingest.folder(dir.path)
        #expect(result.skipped == [SkippedFile(path: "book.epub", reason: "chapter OEBPS/ch2.xhtml: nesting too deep: libxml2 stops at 256 levels of elements")])
    }

    @Test func anEPUBPackageFileNestedTooDeepIsSaidSo() throws {
        let dir = TempDirectory("epub-opf-depth")
        let container = """
        <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
        <rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
        """
        let opf = "<package>" + String(repeating: "<x>", count: 1000) + String(repeating: "</x>", count: 1000) + "</package>"
        try PublisherFixtures.writeZip(dir.url("deep.epub"), members: [("mimetype", "application/epub+zip"), ("META-INF/container.xml", container),
                                                                       ("content.opf", opf)])
        let result = try Ingest.folder(dir.path)
        #expect(result.skipped == [SkippedFile(path: "deep.epub", reason: "corrupt EPUB: content.opf is nested more than 256 levels deep")])
    }

    static let subset = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd" [
      <!ENTITY subsetword "Entityvalue words inside the subset">
      <!-- Commentword in the subset, with a ] and a > -->
      <!ATTLIST p class CDATA "attlistword">
      <!ENTITY % param "Paramword">
      <?pi Piword ?>
      <!ELEMENT note (#PCDATA)>
      <!ENTITY quoted 'Quoteword with ]> inside'>
    ]>
    <html xmlns="http://www.w3.org/1999/xhtml"><head><title>Subset</title></head>
    <body><h1>Subset</h1><p>Bodyword lives in the body.</p></body></html>
    """

    @Test func theTextOfADoctypeInternalSubsetIsNotIndexed() throws {
        let dir = TempDirectory("html-subset")
        try dir.write("src/page.xhtml", Self.subset)
        try dir.write("src/lower.html", "<!doctype html [<!ENTITY x \"Lowercaseword\">]><p>Otherbodyword here.</p>")
        let key = try SecretKey.generate()
        let summary = try CorpusBuilder.build(BuildOptions(source: dir.url("src"), id: "subset", version: CorpusVersion("1")!, title: "Subset"),
                                              key: key, output: dir.url("subset.corpus.zip"))
        #expect(summary.skipped.isEmpty)
        let pack = try PackInspection(bundle: summary.output, key: key.publicKey)
        #expect(try pack.matching("bodyword") == ["Bodyword lives in the body."])
        #expect(try pack.matching("otherbodyword") == ["Otherbodyword here."])
        for word in ["subsetword", "entityvalue", "commentword", "attlistword", "paramword", "piword", "quoteword", "note", "pcdata",
                     "entity", "element", "lowercaseword"] {
            #expect(try pack.matching(word).isEmpty, "\(word) from the internal subset is searchable")
        }
    }

    @Test(arguments: [
        ("<!DOCTYPE html [<!ENTITY a \"x\">]><p>t</p>", "<!DOCTYPE html ><p>t</p>"),
        ("<!DOCTYPE html><p>[not a subset]</p>", "<!DOCTYPE html><p>[not a subset]</p>"),
        ("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE html SYSTEM \"a]b\" [ <!ENTITY q ']>'> ]>\n<p>t</p>",
         "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE html SYSTEM \"a]b\" >\n<p>t</p>"),
        ("<p>no doctype [x]</p>", "<p>no doctype [x]</p>"),
        ("<!DOCTYPE html [ <!ENTITY a \"unterminated", "<!DOCTYPE html "),
    ])
    func theInternalSubsetIsCutFromTheProlog(input: String, expected: String) {
        #expect(String(decoding: IngestHTML.withoutInternalSubset(Array(input.utf8)), as: UTF8.self) == expected)
    }
}
