import Foundation
@testable import CorpusEngine

/// WordPiece tokenisation (`WordPieceTokenizer`, BERT uncased as MiniLM uses it), with the
/// MiniLM vocabulary when `models/` holds it (FUZZ_VOCAB) and a generated one of every ASCII
/// letter and digit otherwise. Properties: nothing traps; every id is in the vocabulary; the
/// output starts with [CLS], ends with [SEP] and respects `maxTokens`; an ASCII word of letters
/// and digits round-trips (its pieces, `##` removed, spell it lower-cased) unless it is [UNK].
func fuzzWordPiece(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let maxTokens = 2 + Int(input.byte())
    let text = input.restText()
    let t = WordPieceVocabulary.tokenizer
    let ids = t.encode(text, maxTokens: maxTokens)
    fuzzAssert(ids.count >= 2 && ids.count <= maxTokens, "\(ids.count) ids for maxTokens \(maxTokens)")
    fuzzAssert(ids.first == t.clsID && ids.last == t.sepID, "not framed by [CLS] and [SEP]")
    fuzzAssert(ids.allSatisfy { $0 >= 0 && Int($0) < WordPieceVocabulary.tokens.count }, "an id outside the vocabulary")

    let words = text.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    for word in words.prefix(8) where word.unicodeScalars.count <= WordPieceTokenizer.maxCharactersPerWord {
        let pieces = t.wordPieces(Array(word.lowercased().unicodeScalars))
        guard pieces != [t.unkID] else { continue }
        let spelled = pieces.enumerated().map { n, id -> String in
            let token = WordPieceVocabulary.tokens[Int(id)]
            return n > 0 && token.hasPrefix("##") ? String(token.dropFirst(2)) : token
        }.joined()
        fuzzAssert(spelled == word.lowercased(), "\(word) tokenised as \(spelled)")
    }
    return 0
}

enum WordPieceVocabulary {
    static let tokens: [String] = {
        if let path = ProcessInfo.processInfo.environment["FUZZ_VOCAB"], let text = try? String(contentsOfFile: path, encoding: .utf8) {
            var lines = text.components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            return lines
        }
        let alphabet = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) } + (0...9).map(String.init)
        return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + alphabet + alphabet.map { "##" + $0 } + ["the", "tide", "##s", "harbour"]
    }()
    static let tokenizer = try! WordPieceTokenizer(vocabulary: tokens)
}

func initializeWordPiece(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        let texts = ["The tides of the North Sea, 1911.", "naïve CAFÉ résumé", "中文字符和日本語", "unaffable unbelievably antidisestablishmentarianism",
                     "e\u{301}\u{0}\u{7}\u{200B}tab\tnew\nline", String(repeating: "x", count: 120), "don't stop-believing; 3.14 $5"]
        return texts.enumerated().map { ("text-\($0.offset)", [255] + Array($0.element.utf8)) }
    }
    _ = WordPieceVocabulary.tokenizer
    return 0
}
