import Foundation

/// Turns whatever a user typed into an FTS5 MATCH expression that can never be a syntax error.
///
/// User text is not FTS5 syntax: `AND`, `OR`, `NOT`, `NEAR`, `"`, `-`, `*`, `:`, `^`, `+` and
/// parentheses all mean something to FTS5, and a stray one is an error. So no user character
/// ever reaches FTS5 as syntax: the text is split into word tokens, each token is written as an
/// FTS5 string (double-quoted, inner `"` doubled), and the strings are joined by the builder's
/// own operators. See docs/engine.md.
///
/// A token is a maximal run of Unicode scalars that are alphabetic, numeric, or combining marks
/// (so Devanagari or Thai syllables stay whole); everything else separates tokens, which drops
/// punctuation, symbols and emoji. CJK ideographs are alphabetic and are kept; FTS5's unicode61
/// tokenizer then splits the quoted string exactly as it split the indexed text.
public enum FTSQuery {
    /// More terms than this add nothing but cost; the rest are ignored.
    public static let maxTokens = 32

    /// The query's distinct tokens in order of first appearance (compared case-insensitively).
    public static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var seen = Set<String>()
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty {
                let token = String(current)
                if seen.insert(token.lowercased()).inserted { tokens.append(token) }
                current = String.UnicodeScalarView()
            }
        }
        for scalar in text.unicodeScalars {
            if tokens.count >= maxTokens { break }
            if isTokenScalar(scalar) { current.append(scalar) } else { flush() }
        }
        if tokens.count < maxTokens { flush() }
        return tokens
    }

    static func isTokenScalar(_ s: Unicode.Scalar) -> Bool {
        let p = s.properties
        if p.isVariationSelector || p.isEmojiPresentation { return false }
        switch p.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark:
            return true
        default:
            return false
        }
    }

    /// English function words that match almost every passage. Dropped from queries that have
    /// other words (`contentTokens`); a query of stop words only ("to be or not to be") keeps them.
    public static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from", "how", "i",
        "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "so", "than", "that", "the",
        "their", "them", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when",
        "where", "which", "who", "why", "will", "with", "you", "your",
    ]

    /// The tokens without stop words, unless nothing else would remain.
    public static func contentTokens(_ tokens: [String]) -> [String] {
        let content = tokens.filter { !stopWords.contains($0.lowercased()) }
        return content.isEmpty ? tokens : content
    }

    /// One token (or a phrase) as an FTS5 string literal: in quotes, each quote doubled. On the
    /// bytes, since Foundation's `replacingOccurrences` goes through `NSString` on Linux and cost
    /// more than the rest of a query's building.
    public static func quote(_ token: String) -> String {
        var literal = [UInt8(ascii: "\"")]
        literal.reserveCapacity(token.utf8.count + 2)
        for byte in token.utf8 {
            if byte == UInt8(ascii: "\"") { literal.append(byte) }
            literal.append(byte)
        }
        literal.append(UInt8(ascii: "\""))
        return String(decoding: literal, as: UTF8.self)
    }

    /// Every token must occur (FTS5's implicit AND); nil when there are no tokens.
    public static func allTerms(_ tokens: [String]) -> String? {
        tokens.isEmpty ? nil : tokens.map(quote).joined(separator: " ")
    }

    /// Every token but one must occur: `("b" "c") OR ("a" "c") OR ("a" "b")`. Only for 3 to
    /// `maxRelaxedTokens` tokens (fewer: it would be `anyTerm`; more: too many groups); else nil.
    public static func allButOne(_ tokens: [String]) -> String? {
        guard (3...maxRelaxedTokens).contains(tokens.count) else { return nil }
        return tokens.indices.map { skip in
            "(" + tokens.indices.filter { $0 != skip }.map { quote(tokens[$0]) }.joined(separator: " ") + ")"
        }.joined(separator: " OR ")
    }

    /// The most tokens `allButOne` expands (n groups of n − 1 terms).
    public static let maxRelaxedTokens = 8

    /// Any token may occur; nil when there are no tokens.
    public static func anyTerm(_ tokens: [String]) -> String? {
        tokens.isEmpty ? nil : tokens.map(quote).joined(separator: " OR ")
    }
}
