/// Removes the text consecutive chunks of one chapter share: the reader app cuts its chapters
/// into overlapping windows, each chunk starting with the end of the one before, and a search
/// that returns both would show the shared words twice (and weigh them twice). The importer cuts
/// the reader app's overlap with it; `read` cuts what is left in a pack of another app's own
/// chunks (docs/engine.md "Reading a document"), so both cut exactly the same words.
///
/// Word-level and bounded: a word is a run of characters between whitespace, compared exactly.
/// For each chunk after the first of a chapter, against the last chunk kept before it:
/// 1. The overlap is the longest run of words that ends the previous chunk and begins this one,
///    looked for among the last and first `maximumWords` words (one pass of Knuth–Morris–Pratt
///    over the previous chunk's tail with this chunk's head as the pattern), so a pair of long
///    chunks costs no more than a pair of short ones.
/// 2. A chunk whose words all lie inside that tail of the previous chunk is dropped.
/// 3. An overlap shorter than `minimumWords` is none: a chance match of a word or two at the
///    junction ("… of the" / "the harbour …") is not the chunker's overlap.
/// 4. Otherwise the chunk keeps its text from its first word after the overlap, as written
///    (the whitespace inside is not reflowed).
/// A chunker that reflowed or re-cased the shared words leaves them in place: nothing is cut
/// that is not the same words.
public enum ChunkOverlap {
    public static let minimumWords = 3
    public static let maximumWords = 256

    public enum Outcome: Equatable, Sendable {
        /// The chunk's text without the overlap (`removedWords` words), or unchanged (0).
        case kept(String, removedWords: Int)
        /// The chunk lies wholly inside the previous one.
        case dropped
    }

    /// Where a chunk meets the one before, in words.
    public enum Match: Equatable, Sendable {
        /// The chunk's first `removedWords` words are the previous chunk's last ones (0: no overlap).
        case overlap(removedWords: Int)
        /// Every word of the chunk (`words` of them) lies inside the previous one, followed there
        /// by `wordsAfter` more words (0: the chunk is the previous one's end).
        case inside(words: Int, wordsAfter: Int)
        /// The chunk has no words.
        case empty
    }

    public static func remainder(of chunk: String, after previous: String) -> Outcome {
        let words = words(chunk)
        switch match(words, after: self.words(previous)) {
        case .empty, .inside: return .dropped
        case let .overlap(q): return .kept(trimmedText(chunk, from: words[q == 0 ? 0 : q]), removedWords: q)
        }
    }

    /// How `words` (a chunk's) meet `previous` (the words of the chunk before).
    public static func match(_ words: [Substring], after previous: [Substring]) -> Match {
        guard !words.isEmpty else { return .empty }
        let tail = Array(previous.suffix(maximumWords))
        let head = Array(words.prefix(maximumWords))
        let whole = head.count == words.count
        let fail = failure(head)
        var q = 0
        for (i, w) in tail.enumerated() {
            while q > 0 && head[q] != w { q = fail[q - 1] }
            if head[q] == w { q += 1 }
            // The whole head matched: the chunk is inside the tail, or (longer than the bound)
            // overlaps it by the bound when the match ends the tail; else look on.
            if q == head.count {
                if whole { return .inside(words: head.count, wordsAfter: tail.count - 1 - i) }
                if i < tail.count - 1 { q = fail[q - 1] }
            }
        }
        return .overlap(removedWords: q >= minimumWords ? q : 0)
    }

    /// The words of `text`, as slices of it.
    public static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: \.isWhitespace)
    }

    /// `text` from the start of `word` (a slice of it) to its last word.
    public static func trimmedText(_ text: String, from word: Substring) -> String {
        var end = text.endIndex
        while end > word.startIndex, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
        return String(text[word.startIndex..<end])
    }

    /// KMP's failure function: `fail[i]` is the length of the longest proper border of `p[0...i]`.
    public static func failure(_ p: [Substring]) -> [Int] {
        var fail = [Int](repeating: 0, count: p.count)
        var k = 0
        for i in p.indices.dropFirst() {
            while k > 0 && p[i] != p[k] { k = fail[k - 1] }
            if p[i] == p[k] { k += 1 }
            fail[i] = k
        }
        return fail
    }
}
