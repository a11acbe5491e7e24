import Testing
@testable import CorpusPublisher

@Suite struct IngestHTMLTests {
    @Test func dropsChromeDecodesEntitiesAndFollowsHeadings() throws {
        let html = """
        <!DOCTYPE html>
        <html><head><title>Caf&eacute; guide</title><style>p { color: red }</style>
        <script>if (a < b && c) { document.write("<p>script text</p>") }</script></head>
        <body>
        <header>Site header</header>
        <nav><a href="/">Home</a> menu</nav>
        <div role="navigation">Breadcrumbs</div>
        <h1>Caf&eacute; guide</h1>
        <p>Salt &amp; pepper,   cr&egrave;me
           br&ucirc;l&eacute;e &lt;3</p>
        <h2>Coffee</h2>
        <p>Espresso <em>first</em>,<br>then milk.</p>
        <aside>Related links</aside>
        <h3>Beans</h3>
        <ul><li>Arabica</li><li>Robusta</li></ul>
        <table><tr><th>Bean</th><th>Caffeine</th></tr><tr><td>Arabica</td><td>1.5%</td></tr></table>
        <noscript>Enable JS</noscript>
        <footer>Copyright</footer>
        </body></html>
        """
        let doc = try IngestHTML.document(path: "cafe.html", bytes: Array(html.utf8))
        #expect(doc.title == "Café guide")
        #expect(doc.sections.map(\.path) == ["", "Coffee", "Coffee > Beans"])
        #expect(doc.sections[0].paragraphs == ["Salt & pepper, crème brûlée <3"])
        #expect(doc.sections[1].paragraphs == ["Espresso first,", "then milk."])
        #expect(doc.sections[2].paragraphs == ["Arabica", "Robusta", "Bean Caffeine", "Arabica 1.5%"])
        let all = doc.sections.flatMap(\.paragraphs).joined(separator: " ")
        for chrome in ["script text", "color", "Site header", "menu", "Breadcrumbs", "Related", "Enable JS", "Copyright"] {
            #expect(!all.contains(chrome), "\(chrome) should have been dropped")
        }
    }

    @Test func titleFallsBackToFirstH1ThenFileName() throws {
        let withH1 = try IngestHTML.document(path: "x.html", bytes: Array("<body><h1>Heading one</h1><p>Text</p></body>".utf8))
        #expect(withH1.title == "Heading one")
        let bare = try IngestHTML.document(path: "dir/plain-page.htm", bytes: Array("<p>Just text</p>".utf8))
        #expect(bare.title == "plain-page")
        #expect(bare.sections.map(\.paragraphs) == [["Just text"]])
    }

    @Test func utf8WithoutCharsetIsNotReadAsLatin1() throws {
        let doc = try IngestHTML.document(path: "x.html", bytes: Array("<p>Zürich 東京</p>".utf8))
        #expect(doc.sections[0].paragraphs == ["Zürich 東京"])
    }

    @Test func xhtmlWithProlog() throws {
        let doc = try IngestHTML.document(path: "c.xhtml", bytes: Array(XHTMLSample.chapter.utf8))
        #expect(doc.title == "Chapter")
        #expect(doc.sections.flatMap(\.paragraphs) == ["Line one.", "Line two."])
    }
}

enum XHTMLSample {
    static let chapter = """
    <?xml version="1.0" encoding="UTF-8"?>
    <html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter</title></head>
    <body><p>Line one.</p><p>Line two.</p></body></html>
    """
}
