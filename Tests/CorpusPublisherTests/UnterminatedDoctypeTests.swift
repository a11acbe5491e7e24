import Testing
@testable import CorpusPublisher

/// A file that ends inside its DOCTYPE (a truncated download, a stray quote) must ingest or be
/// skipped with a reason, never stop the build. Found by the `IngestHTML` fuzz target
/// (docs/fuzzing.md): `<!DOCTYPE ht` followed by an unclosed `"` and no `>` trapped on an index
/// past the end in `withoutInternalSubset`.
@Suite struct UnterminatedDoctypeTests {
    static let document = #"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" 'x' [<!ENTITY a "]>">]><html><body><p>Tide</p></body></html>"#

    @Test(arguments: ["<!DOCTYPE html", "<!doctype html PUBLIC \"-//W3C//DTD XHTML 1.0", "\u{FEFF}<!-- c --><!DOCTYPE html 'unclosed",
                      "<!DOCTYPE ht\"<item id=\"x\">&amp; <p>tide</p>"])
    func doctypeWithoutEndIsLeftAsItIs(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(IngestHTML.withoutInternalSubset(bytes) == bytes)
    }

    @Test func everyTruncationOfADoctypeIngestsOrIsRefused() {
        let bytes = Array(Self.document.utf8)
        for n in 0...bytes.count {
            do {
                _ = try IngestHTML.document(path: "page.html", bytes: Array(bytes.prefix(n)))
            } catch {
                #expect(error.reason.hasPrefix("libxml2") || error.reason.contains("nesting"), "prefix \(n): \(error.reason)")
            }
        }
    }
}
