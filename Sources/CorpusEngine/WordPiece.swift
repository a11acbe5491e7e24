import Foundation

/// BERT tokenization: the normalizer, pre-tokenizer and WordPiece model of HuggingFace
/// `tokenizers` (`BertNormalizer`, `BertPreTokenizer`, `WordPiece`), followed by the
/// `[CLS] … [SEP]` template. Lower-casing, accent stripping and the splitting of CJK ideographs
/// follow the model's tokenizer settings (`EncoderSettings`); uncased, as all-MiniLM-L6-v2's
/// `tokenizer.json` has it, unless told otherwise.
///
/// Where the Python `BertTokenizer` and the Rust one differ (order of lowercasing and accent
/// stripping, what counts as whitespace), this follows the Rust one, which is what
/// sentence-transformers loads. https://github.com/huggingface/tokenizers (bert.rs, wordpiece)
public struct WordPieceTokenizer: Sendable {
    /// Words with more Unicode scalars than this become a single `[UNK]`.
    public static let maxCharactersPerWord = 100

    public let clsID: Int32
    public let sepID: Int32
    public let unkID: Int32
    /// Keys are the UTF-8 bytes of each vocabulary line. Not `String`: Swift's `String`
    /// equality is canonical equivalence, and vocabulary entries must match byte for byte.
    private let vocabulary: [[UInt8]: Int32]
    /// The longest vocabulary key in bytes: a longer candidate cannot match, so `wordPieces`
    /// starts below it (MiniLM's is 18 bytes; words run to 100 scalars, and trying every
    /// longer candidate first was most of a long word's cost).
    private let longestKey: Int
    public var lowercase = true
    public var stripAccents = true
    public var chineseCharacters = true

    /// Loads `vocab.txt`: one token a line, the id is the line number.
    public init(vocabularyFile: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: vocabularyFile)
        } catch {
            throw EncoderError.modelMissing(directory: vocabularyFile.deletingLastPathComponent().path,
                                           file: vocabularyFile.lastPathComponent)
        }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        try self.init(vocabularyLines: lines)
    }

    /// A vocabulary given as tokens in id order.
    public init(vocabulary tokens: [String]) throws {
        try self.init(vocabularyLines: tokens.map { Array($0.utf8) })
    }

    private init(vocabularyLines: [[UInt8]]) throws {
        var vocabulary: [[UInt8]: Int32] = [:]
        vocabulary.reserveCapacity(vocabularyLines.count)
        for (index, var line) in vocabularyLines.enumerated() {
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            // The first occurrence wins, as in HuggingFace's vocabulary loading.
            if vocabulary[line] == nil { vocabulary[line] = Int32(index) }
        }
        func special(_ token: String) throws -> Int32 {
            guard let id = vocabulary[Array(token.utf8)] else {
                throw EncoderError.invalidVocabulary(reason: "no \(token) token")
            }
            return id
        }
        self.vocabulary = vocabulary
        self.longestKey = vocabulary.keys.map(\.count).max() ?? 0
        self.clsID = try special("[CLS]")
        self.sepID = try special("[SEP]")
        self.unkID = try special("[UNK]")
    }

    public var vocabularySize: Int { vocabulary.count }

    /// Token ids for one text: `[CLS]`, the word pieces (truncated so the total is at most
    /// `maxTokens`), `[SEP]`.
    public func encode(_ text: String, maxTokens: Int = 256) -> [Int32] {
        precondition(maxTokens >= 2, "room for [CLS] and [SEP] is needed")
        var ids: [Int32] = [clsID]
        let budget = maxTokens - 2
        outer: for word in Self.basicTokens(text, lowercase: lowercase, stripAccents: stripAccents, chineseCharacters: chineseCharacters) {
            for id in wordPieces(word) {
                if ids.count - 1 == budget { break outer }
                ids.append(id)
            }
        }
        ids.append(sepID)
        return ids
    }

    /// Greedy longest-match-first split of one pre-tokenized word into vocabulary ids;
    /// a word with any unmatched remainder is a single `[UNK]`.
    func wordPieces(_ word: [Unicode.Scalar]) -> [Int32] {
        if word.count > Self.maxCharactersPerWord { return [unkID] }
        let utf8Offsets = word.reduce(into: [0]) { $0.append($0.last! + UTF8.width($1)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8Offsets.last!)
        for scalar in word { bytes.append(contentsOf: UTF8.encode(scalar)!) }

        var pieces: [Int32] = []
        var start = 0
        var key: [UInt8] = []
        while start < word.count {
            let marker = start > 0 ? 2 : 0
            var end = word.count
            while end > start, marker + utf8Offsets[end] - utf8Offsets[start] > longestKey { end -= 1 }
            var match: Int32?
            while start < end {
                key.removeAll(keepingCapacity: true)
                if start > 0 { key.append(contentsOf: [UInt8(ascii: "#"), UInt8(ascii: "#")]) }
                key.append(contentsOf: bytes[utf8Offsets[start]..<utf8Offsets[end]])
                if let id = vocabulary[key] {
                    match = id
                    break
                }
                end -= 1
            }
            guard let id = match else { return [unkID] }
            pieces.append(id)
            start = end
        }
        return pieces
    }

    // MARK: - Normalization and pre-tokenization

    /// The words BERT's normalizer and pre-tokenizer produce, before WordPiece.
    static func basicTokens(_ text: String, lowercase: Bool = true, stripAccents: Bool = true,
                            chineseCharacters: Bool = true) -> [[Unicode.Scalar]] {
        // Clean text and pad CJK ideographs (BertNormalizer.clean_text, handle_chinese_chars).
        var cleaned = String.UnicodeScalarView()
        var ascii = true
        for scalar in text.unicodeScalars {
            ascii = ascii && scalar.isASCII
            if scalar.value == 0 || scalar.value == 0xFFFD || isControl(scalar) { continue }
            if isWhitespace(scalar) {
                cleaned.append(" ")
            } else if chineseCharacters, isCJKIdeograph(scalar) {
                cleaned.append(" ")
                cleaned.append(scalar)
                cleaned.append(" ")
            } else {
                cleaned.append(scalar)
            }
        }
        // Strip accents (NFD, drop Mn), then lowercase each scalar on its own: the Rust
        // normalizer maps char by char, so there is no final-sigma context rule. Without
        // accent stripping the text is not decomposed at all, as in the Rust normalizer.
        // ASCII text has nothing to decompose and no marks; its capitals lowercase by adding 32.
        // Asking the Unicode tables about every letter of an English passage cost 2 % of its
        // encoding (docs/engine.md "Matrix products").
        let decomposed = stripAccents && !ascii ? String(cleaned).decomposedStringWithCanonicalMapping : String(cleaned)
        var normalized: [Unicode.Scalar] = []
        normalized.reserveCapacity(decomposed.unicodeScalars.count)
        for scalar in decomposed.unicodeScalars {
            if scalar.isASCII {
                let upper = (65...90).contains(scalar.value)
                normalized.append(lowercase && upper ? Unicode.Scalar(UInt8(scalar.value + 32)) : scalar)
                continue
            }
            if stripAccents && scalar.properties.generalCategory == .nonspacingMark { continue }
            if lowercase, scalar.properties.changesWhenLowercased {
                normalized.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                normalized.append(scalar)
            }
        }
        // Split on whitespace (dropped) and punctuation (kept, one scalar per token).
        var words: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        for scalar in normalized {
            if isWhitespace(scalar) {
                if !current.isEmpty { words.append(current); current = [] }
            } else if isPunctuation(scalar) {
                if !current.isEmpty { words.append(current); current = [] }
                words.append([scalar])
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Rust's `char::is_whitespace` (the Unicode White_Space property), plus tab, LF, CR.
    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        // ASCII's White_Space characters are tab to carriage return and the space.
        if s.isASCII { return s.value == 0x20 || (0x09...0x0D).contains(s.value) }
        return s.properties.isWhitespace
    }

    /// General category C* (Cc, Cf, Cs, Co, Cn), except tab, LF and CR which are whitespace.
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        if s == "\t" || s == "\n" || s == "\r" { return false }
        // ASCII's C* characters are the controls Cc: below the space, and DEL.
        if s.isASCII { return s.value < 0x20 || s.value == 0x7F }
        switch s.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

    /// ASCII punctuation (which includes symbols such as `$`, `+`, `^`) or any Unicode P*.
    static func isPunctuation(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 33...47, 58...64, 91...96, 123...126: return true
        case 0..<128: return false // every ASCII P* character is in the ranges above
        default: break
        }
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK Unified Ideographs blocks as `tokenizers` lists them (bert.rs `is_chinese_char`).
    static func isCJKIdeograph(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F,
             0x2B740...0x2B81F, 0x2B920...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
