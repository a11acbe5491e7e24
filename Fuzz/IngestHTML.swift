import Foundation
@testable import CorpusPublisher

/// HTML ingest (`IngestHTML`, libxml2's HTML parser behind `XMLTree`), then passage splitting,
/// on the bytes `Ingest` hands it (a file with a NUL byte is refused before, as there).
func fuzzIngestHTML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let maxLength = 16 + Int(input.byte()) * 4
    let bytes = input.rest()
    guard !bytes.contains(0), let doc = try? IngestHTML.document(path: "page.html", bytes: bytes) else { return 0 }
    PassageCheck.check([doc], maxLength: maxLength)
    return 0
}

func initializeIngestHTML(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked { IngestSeeds.html.enumerated().map { ("html-\($0.offset)", [200] + Array($0.element.utf8)) } }
    return 0
}
