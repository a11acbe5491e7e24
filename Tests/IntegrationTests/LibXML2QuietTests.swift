import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// libxml2 reports an input its encoder cannot convert through its generic error handler, which
/// writes to stderr whatever the parse options say ("encoding error : input conversion failed
/// due to input error, bytes 0x8E 0x22 …", "I/O error : encoder error"). Library code prints
/// nothing: the ingest drops those reports (CXML2/shim.h) and the document is still read.
@Suite struct LibXML2QuietTests {
    @Test func aDocumentItsDeclaredCharsetCannotDecodeIsIngestedWithoutLibxml2Output() throws {
        let work = TempDirectory("libxml2-quiet")
        // EUC-JP declared; 0x8E must be followed by a half-width katakana byte, and 0x22 is not one.
        let html = Array(#"<html><head><meta charset="EUC-JP"><title>Tides</title></head><body><p>harbour "#.utf8) + [0x8E, 0x22]
            + Array(#" tide tables for the pier, enough words to make a passage.</p></body></html>"#.utf8)
        try FileManager.default.createDirectory(atPath: work.url("src"), withIntermediateDirectories: true)
        try Data(html).write(to: URL(fileURLWithPath: work.url("src/bad-charset.html")))
        _ = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", work.path, "--name", "k"])
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", work.url("src"), "--id", "tides", "--version", "1", "--key", work.url("k.key"),
                                                              "--out", work.url("tides.corpus.zip"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "corpusd build --quiet wrote to stderr: \(r.stderr.debugDescription)")
        let manifest = try BundleReader(path: work.url("tides.corpus.zip")).manifest(trustedKeys: [try PublicKey(contentsOf: work.url("k.pub"))]).manifest
        #expect(manifest.documents == 1 && manifest.passages >= 1, "\(manifest.documents) documents, \(manifest.passages) passages")
    }
}
