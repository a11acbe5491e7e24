import Foundation
@testable import CorpusPublisher

/// Markdown and plain-text ingest (`IngestMarkdown`, `IngestText`) on the text `Ingest` hands
/// them (valid UTF-8 only, as there), then passage splitting.
func fuzzIngestMarkdown(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let maxLength = 16 + Int(mode >> 1) * 8
    guard let text = Text.decodeUTF8(input.rest()) else { return 0 }
    let doc = mode & 1 == 0 ? IngestMarkdown.document(path: "notes.md", text: text) : IngestText.document(path: "notes.txt", text: text)
    PassageCheck.check([doc], maxLength: maxLength)
    return 0
}

func initializeIngestMarkdown(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        IngestSeeds.markdown.enumerated().map { ("markdown-\($0.offset)", [200] + Array($0.element.utf8)) }
            + [("text-0", [201] + Array("Para one\nstill one.\n\nPara two. Sentence! Another? 中文。句子\n\n\n".utf8))]
    }
    return 0
}
