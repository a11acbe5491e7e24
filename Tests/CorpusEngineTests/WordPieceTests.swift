import Foundation
import Testing
@testable import CorpusEngine
import CorpusFormat

@Suite struct WordPieceTests {
    static let basicCases: [(String, [String])] = [
        ("Hello, World!", ["hello", ",", "world", "!"]),
        ("naïve café RÉSUMÉ", ["naive", "cafe", "resume"]),
        ("数据库 全文", ["数", "据", "库", "全", "文"]),
        ("ab数c", ["ab", "数", "c"]),
        // NUL, U+FFFD and format characters (zero-width space, Cf) are dropped, not split on.
        ("a\u{0}b\u{FFFD}c\u{200B}d", ["abcd"]),
        // Tab, newline, ideographic space and line separator split; other controls vanish.
        ("a\tb\nc\u{3000}d\u{2028}e\u{7}f", ["a", "b", "c", "d", "ef"]),
        // ASCII symbols count as punctuation; Unicode symbols (S*) do not.
        ("$5+3^2=x", ["$", "5", "+", "3", "^", "2", "=", "x"]),
        ("©®™ ±×", ["©®™", "±×"]),
        ("«quote»—dash", ["«", "quote", "»", "—", "dash"]),
        ("don't", ["don", "'", "t"]),
        // Lowercased one scalar at a time: no final-sigma rule.
        ("ΟΔΟΣ", ["οδοσ"]),
        // İ decomposes to I + U+0307 (Mn), which accent stripping drops.
        ("İstanbul", ["istanbul"]),
        ("", []),
        ("   ", []),
    ]

    @Test(arguments: basicCases)
    func basicTokenization(_ input: String, _ expected: [String]) {
        let words = WordPieceTokenizer.basicTokens(input).map { String(String.UnicodeScalarView($0)) }
        #expect(words == expected, "input \(input.debugDescription)")
    }

    static let vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "a", "##a", "able", "##b"]

    static let pieceCases: [(String, [Int32])] = [
        ("unaffable", [4, 5, 6]),
        ("able", [10]),
        ("aaa", [8, 9, 9]),
        // "un" matches but "##x" does not: the whole word is unknown, not a partial split.
        ("unx", [1]),
        ("b", [1]),
        ("ab", [8, 11]),
        (String(repeating: "a", count: 100), [8] + [Int32](repeating: 9, count: 99)),
        (String(repeating: "a", count: 101), [1]),
    ]

    @Test(arguments: pieceCases)
    func wordPieces(_ word: String, _ expected: [Int32]) throws {
        let tokenizer = try WordPieceTokenizer(vocabulary: Self.vocabulary)
        #expect(tokenizer.wordPieces(Array(word.unicodeScalars)) == expected)
    }

    @Test func encodeAddsSpecialsAndTruncates() throws {
        let tokenizer = try WordPieceTokenizer(vocabulary: Self.vocabulary)
        #expect(tokenizer.encode("unaffable able") == [2, 4, 5, 6, 10, 3])
        #expect(tokenizer.encode("unaffable able", maxTokens: 4) == [2, 4, 5, 3])
        #expect(tokenizer.encode("") == [2, 3])
    }

    @Test func vocabularyWithoutSpecialTokensIsRefused() {
        #expect(throws: EncoderError.invalidVocabulary(reason: "no [CLS] token")) {
            try WordPieceTokenizer(vocabulary: ["[PAD]", "[UNK]", "[SEP]", "a"])
        }
    }

    @Test func goldenFileIsPresent() throws {
        let golden = try MiniLMFixtures.golden()
        #expect(golden.rows.count > 0)
        #expect(golden.max_tokens == EncoderSettings.meanPooledUncased.maxTokens)
    }

    /// Every golden row's ids, as HuggingFace's tokenizer produced them, must be reproduced exactly.
    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func goldenTokenIDs() throws {
        let golden = try MiniLMFixtures.golden()
        let tokenizer = try WordPieceTokenizer(
            vocabularyFile: MiniLMFixtures.modelDirectory.appendingPathComponent("vocab.txt"))
        #expect(tokenizer.vocabularySize == 30522)
        for (i, row) in golden.rows.enumerated() {
            let ids = tokenizer.encode(row.text, maxTokens: golden.max_tokens)
            #expect(ids == row.ids, "row \(i): \(row.text.debugDescription)")
        }
    }

    /// The ASCII shortcuts give, for each of the 128 ASCII scalars, what the Unicode tables give:
    /// whitespace, control, punctuation, lowercase, and nothing decomposed or stripped.
    @Test func asciiShortcutsAgreeWithTheUnicodeTables() {
        for value in UInt8(0)...UInt8(127) {
            let s = Unicode.Scalar(value)
            let whitespace = s == "\t" || s == "\n" || s == "\r" || s.properties.isWhitespace
            #expect(WordPieceTokenizer.isWhitespace(s) == whitespace, "whitespace \(value)")
            let control = !(s == "\t" || s == "\n" || s == "\r")
                && [.control, .format, .surrogate, .privateUse, .unassigned].contains(s.properties.generalCategory)
            #expect(WordPieceTokenizer.isControl(s) == control, "control \(value)")
            let punctuation = (33...47).contains(value) || (58...64).contains(value) || (91...96).contains(value)
                || (123...126).contains(value)
                || [.connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                    .finalPunctuation, .otherPunctuation].contains(s.properties.generalCategory)
            #expect(WordPieceTokenizer.isPunctuation(s) == punctuation, "punctuation \(value)")
            #expect(s.properties.generalCategory != .nonspacingMark)
            #expect(String(s).decomposedStringWithCanonicalMapping == String(s))
        }
        let printable = String(String.UnicodeScalarView((UInt8(32)...UInt8(126)).map { Unicode.Scalar($0) }))
        let words = WordPieceTokenizer.basicTokens(printable).map { String(String.UnicodeScalarView($0)) }
        let expected = WordPieceTokenizer.basicTokens(printable + "é").dropLast().map { String(String.UnicodeScalarView($0)) }
        #expect(words.joined() == printable.lowercased().replacingOccurrences(of: " ", with: ""))
        #expect(words == Array(expected), "the ASCII path and the Unicode path (a text with é) split alike")
    }
}
