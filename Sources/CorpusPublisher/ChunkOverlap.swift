/// Removes the text consecutive chunks of one chapter share: the reader app cuts its chapters
/// into overlapping windows, each chunk starting with the end of the one before, and a search
/// that returns both would show the shared sentences twice (and weigh them twice).
///
/// For each chunk after the first of a chapter, compared with the last chunk kept before it
/// (the original texts, surrounding whitespace trimmed, as UTF-8 bytes):
/// 1. A chunk wholly inside the previous one is dropped.
/// 2. Otherwise the overlap is the longest prefix of the chunk that is also a suffix of the
///    previous one (one pass of Knuth–Morris–Pratt over the previous chunk with the chunk as the
///    pattern; the matcher's state at the end is that length). It counts only when it is at least
///    `minimumOverlap` bytes and starts and ends on word boundaries (never between two ASCII
///    letters or digits, never inside a UTF-8 sequence); else the next shorter such border is
///    tried, down to none. A chance match of a word or two at the junction is not an overlap.
/// 3. The overlap is cut from the start of the chunk, and the whitespace after it.
/// Text is compared exactly: a chunker that reflowed the shared text would leave it in place.
enum ChunkOverlap {
    static let minimumOverlap = 12

    enum Outcome: Equatable {
        /// The chunk's text with the overlap removed (`removed` bytes), or unchanged (0).
        case kept(String, removed: Int)
        /// The chunk lies wholly inside the previous one.
        case dropped
    }

    static func remainder(of chunk: String, after previous: String) -> Outcome {
        let p = Array(trimmed(chunk).utf8), t = Array(trimmed(previous).utf8)
        guard !p.isEmpty else { return .dropped }
        guard !t.isEmpty else { return .kept(String(decoding: p, as: UTF8.self), removed: 0) }
        let fail = failure(p)
        var q = 0
        for b in t {
            while q > 0 && p[q] != b { q = fail[q - 1] }
            if p[q] == b { q += 1 }
            if q == p.count { return .dropped }
        }
        while q > 0 && !(q >= minimumOverlap && isBoundary(p, at: q) && isBoundary(t, at: t.count - q)) { q = fail[q - 1] }
        guard q > 0 else { return .kept(String(decoding: p, as: UTF8.self), removed: 0) }
        var start = q
        while start < p.count, isSpace(p[start]) { start += 1 }
        guard start < p.count else { return .dropped }
        return .kept(String(decoding: p[start...], as: UTF8.self), removed: start)
    }

    /// KMP's failure function: `fail[i]` is the length of the longest proper border of `p[0...i]`.
    static func failure(_ p: [UInt8]) -> [Int] {
        var fail = [Int](repeating: 0, count: p.count)
        var k = 0
        for i in 1..<max(p.count, 1) {
            while k > 0 && p[i] != p[k] { k = fail[k - 1] }
            if p[i] == p[k] { k += 1 }
            fail[i] = k
        }
        return fail
    }

    /// True when a cut before byte `i` of `b` falls between words (or at either end).
    static func isBoundary(_ b: [UInt8], at i: Int) -> Bool {
        guard i > 0, i < b.count else { return true }
        if b[i] & 0xC0 == 0x80 { return false }
        return !(isWordByte(b[i - 1]) && isWordByte(b[i]))
    }

    static func isWordByte(_ b: UInt8) -> Bool {
        (48...57).contains(b) || (65...90).contains(b) || (97...122).contains(b)
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0d).contains(b) }

    /// `s` without the whitespace around it.
    static func trimmed(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
