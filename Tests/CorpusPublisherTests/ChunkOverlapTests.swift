import Testing
@testable import CorpusPublisher
import CorpusEngine

/// The reader app's overlapping chunks lose the words they share with the chunk before
/// (word-level, bounded, never a chance match of a word or two).
@Suite struct ChunkOverlapTests {
    static let cases: [(String, previous: String, chunk: String, ChunkOverlap.Outcome)] = [
        ("the chunker's overlap is cut", "a b c d e f g", "e f g h i", .kept("h i", removedWords: 3)),
        ("the longest overlap wins", "x a b a b a b", "a b a b c", .kept("c", removedWords: 4)),
        ("two words at the junction are chance", "the mouth of the", "of the harbour", .kept("of the harbour", removedWords: 0)),
        ("no shared words", "one two three", "four five six", .kept("four five six", removedWords: 0)),
        ("a chunk inside the previous one is dropped", "a b c d e f", "b c d", .dropped),
        ("a chunk equal to the previous one's end is dropped", "a b c d e", "c d e", .dropped),
        ("whitespace inside the rest is kept as written", "w x y z", "x y z\n\nnext  line", .kept("next  line", removedWords: 3)),
        ("surrounding whitespace goes", "p q", "  r s \n", .kept("r s", removedWords: 0)),
        ("words compare exactly: case", "Tide turns at noon", "tide turns at noon today", .kept("tide turns at noon today", removedWords: 0)),
        ("words compare exactly: punctuation", "the tide turns.", "the tide turns, slowly", .kept("the tide turns, slowly", removedWords: 0)),
        ("an empty chunk is dropped", "a b c", " \n ", .dropped),
        ("non-ASCII words", "la marée monte vite ici", "monte vite ici ce soir", .kept("ce soir", removedWords: 3)),
    ]

    @Test(arguments: cases)
    func outcome(_ c: (String, previous: String, chunk: String, ChunkOverlap.Outcome)) {
        #expect(ChunkOverlap.remainder(of: c.chunk, after: c.previous) == c.3, "\(c.0)")
    }

    /// Overlaps are looked for among the last and first `maximumWords` words: one of exactly the
    /// bound is cut, a longer one is not looked for (the chunk stays whole), and a long pair of
    /// chunks costs no more than a short one.
    @Test func theOverlapIsBounded() {
        let n = ChunkOverlap.maximumWords
        func words(_ range: Range<Int>) -> [String] { range.map { "w\($0)" } }
        let previous = (["lead"] + words(0..<n)).joined(separator: " ")
        let atBound = (words(0..<n) + ["tail"]).joined(separator: " ")
        #expect(ChunkOverlap.remainder(of: atBound, after: previous) == .kept("tail", removedWords: n))

        let longer = (["lead"] + words(0..<(n + 40))).joined(separator: " ")
        let beyond = (words(0..<(n + 40)) + ["tail"]).joined(separator: " ")
        #expect(ChunkOverlap.remainder(of: beyond, after: longer) == .kept(beyond, removedWords: 0))
    }

    /// The KMP failure function on a known pattern.
    @Test func failureFunction() {
        let p = "a b a b a c a".split(separator: " ")
        #expect(ChunkOverlap.failure(p) == [0, 0, 1, 2, 3, 0, 1])
    }
}
