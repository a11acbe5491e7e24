import Foundation

/// Fits search hits into a language model's context: the passages in rank order, each whole
/// while it fits and the first that does not cut at its last sentence that still fits, counted
/// in WordPiece tokens (the tokenizer of the MiniLM model the corpora are embedded with, close to
/// what a small on-device model counts). docs/engine.md "Context budgeting" gives the split of a
/// 4,096-token window this is meant for.
public struct ContextBudget: Sendable {
    /// A 4,096-token window: instructions, the question, the passages, and room for the answer.
    public static let window = 4096
    public static let instructions = 384
    public static let question = 128
    public static let answer = 512
    /// What is left for passages in a 4,096-token window (3,072), the default `--budget`.
    public static let passages = window - instructions - question - answer

    /// One passage as it goes into the context: the hit, its text (maybe trimmed) and its tokens.
    public struct Passage: Sendable, Hashable {
        public var hit: Hit
        public var text: String
        public var tokens: Int
        public var trimmed: Bool
    }

    public let tokenizer: WordPieceTokenizer
    /// Tokens each passage costs beyond its text: the citation line a prompt puts above it.
    public var perPassageOverhead = 16

    public init(tokenizer: WordPieceTokenizer) { self.tokenizer = tokenizer }

    /// Word-piece tokens of `text` ([CLS] and [SEP] not counted).
    public func count(_ text: String) -> Int { tokenizer.encode(text, maxTokens: Int.max / 2).count - 2 }

    /// The hits that fit `budget` tokens, in rank order. A passage that does not fit whole is cut
    /// after its last sentence that fits; one whose first sentence does not fit ends the list.
    public func fit(_ hits: [Hit], budget: Int) -> [Passage] {
        var left = budget
        var out: [Passage] = []
        for hit in hits {
            let room = left - perPassageOverhead
            guard room > 0 else { break }
            let whole = count(hit.text)
            if whole <= room {
                out.append(Passage(hit: hit, text: hit.text, tokens: whole, trimmed: false))
                left -= whole + perPassageOverhead
                continue
            }
            var kept: [String] = []
            var used = 0
            for sentence in Sentences.split(hit.text) {
                let n = count(sentence)
                guard used + n <= room else { break }
                kept.append(sentence)
                used += n
            }
            if !kept.isEmpty { out.append(Passage(hit: hit, text: kept.joined(separator: " "), tokens: used, trimmed: true)) }
            break
        }
        return out
    }
}

/// Sentence boundaries for budgeting and extraction: after `.`, `!`, `?` (and closing quotes or
/// brackets) followed by white space, and at blank lines. Abbreviations may split early, which
/// only ever keeps less text, never a broken word.
public enum Sentences {
    public static func split(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            current.append(c)
            let atEnd = i + 1 == chars.count
            let nextIsSpace = !atEnd && chars[i + 1].isWhitespace
            var boundary = false
            if ".!?".contains(c) || (")\"'»”’".contains(c) && i > 0 && ".!?".contains(chars[i - 1])) {
                boundary = nextIsSpace && !(i + 1 < chars.count && ")\"'»”’".contains(chars[i + 1]))
            }
            if c == "\n", !atEnd, chars[i + 1] == "\n" { boundary = true }
            if boundary {
                let s = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !s.isEmpty { out.append(s) }
                current = ""
            }
            i += 1
        }
        let s = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !s.isEmpty { out.append(s) }
        return out
    }
}
