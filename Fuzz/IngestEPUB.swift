import Foundation
import CorpusFormat
@testable import CorpusPublisher
import CorpusTestSupport

/// EPUB ingest (`IngestEPUB`: container.xml, the OPF package, the spine's XHTML chapters through
/// libxml2), on a file in the scratch folder opened as `Ingest` opens it, then passage splitting.
/// Byte 0, bit 0: the zip shape (`ZipInput`).
func fuzzIngestEPUB(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let path = FuzzScratch.file("book.epub", ZipInput.archive(&input, mode: mode))
    guard let file = try? FileHandleReader(path: path), let docs = try? IngestEPUB.documents(path: "book.epub", file: file) else { return 0 }
    PassageCheck.check(docs, maxLength: 64)
    return 0
}

func initializeIngestEPUB(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        let members: [(String, String)] = [
            ("mimetype", "application/epub+zip"),
            ("META-INF/container.xml", #"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#),
            ("OEBPS/content.opf", #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Tides</dc:title></metadata><manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/../ch2.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="c1"/></spine></package>"#),
            ("OEBPS/ch1.xhtml", #"<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Flood</title></head><body><h1>Flood</h1><p>The tide comes in.</p></body></html>"#),
            ("OEBPS/ch2.xhtml", #"<html><body><h2>Ebb</h2><p>It goes out &amp; back.</p></body></html>"#),
        ]
        let bytes = members.map { ($0.0, Array($0.1.utf8)) }
        let path = FuzzScratch.file("seed.epub", ZipCrafting.build(bytes.map { CraftedZipEntry(name: $0.0, stored: $0.1) }))
        return try ZipInput.seeds("epub", zip: path, members: bytes.map(\.0))
    }
    return 0
}
