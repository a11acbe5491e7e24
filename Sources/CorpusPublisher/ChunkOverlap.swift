/// Removes the text consecutive chunks of one chapter share: the reader app cuts its chapters
/// into overlapping windows, each chunk starting with the end of the one before, and a search
/// that returns both would show the shared words twice (and weigh them twice).
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
enum ChunkOverlap {
    static let minimumWords = 3
    static let maximumWords = 256

    enum Outcome: Equatable {
        /// The chunk's text without the overlap (`removedWords` words), or unchanged (0).
        case kept(String, removedWords: Int)
        /// The chunk lies wholly inside the previous one.
        case dropped
    }

    static func remainder(of chunk: String, after previous: String) -> Outcome {
        let words = words(chunk)
        guard !words.isEmpty else { return .dropped }
        let tail = Array(self.words(previous).suffix(maximumWords))
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
                if whole { return .dropped }
                if i < tail.count - 1 { q = fail[q - 1] }
            }
        }
        guard q >= minimumWords else { return .kept(trimmedText(chunk, from: words[0]), removedWords: 0) }
        return .kept(trimmedText(chunk, from: words[q]), removedWords: q)
    }

    /// The words of `text`, as slices of it.
    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: \.isWhitespace)
    }

    /// `text` from the start of `word` (a slice of it) to its last word.
    static func trimmedText(_ text: String, from word: Substring) -> String {
        var end = text.endIndex
        while end > word.startIndex, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
        return String(text[word.startIndex..<end])
    }

    /// KMP's failure function: `fail[i]` is the length of the longest proper border of `p[0...i]`.
    static func failure(_ p: [Substring]) -> [Int] {
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
