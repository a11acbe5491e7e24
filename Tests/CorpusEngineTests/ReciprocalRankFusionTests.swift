import Testing
@testable import CorpusEngine

@Suite struct ReciprocalRankFusionTests {
    typealias RRF = ReciprocalRankFusion

    @Test func scoresAreSumsOfReciprocalRanks() {
        // lexical: a b c; vector: c a d. Hand-computed with k = 60:
        // a = 1/61 + 1/62, c = 1/63 + 1/61, b = 1/62, d = 1/63.
        let fused = RRF.fuse([.init(channel: .lexical, keys: ["a", "b", "c"]), .init(channel: .vector, keys: ["c", "a", "d"])])
        #expect(fused.map(\.key) == ["a", "c", "b", "d"])
        let byKey = Dictionary(uniqueKeysWithValues: fused.map { ($0.key, $0) })
        #expect(abs(byKey["a"]!.score - (1.0 / 61 + 1.0 / 62)) < 1e-15)
        #expect(abs(byKey["c"]!.score - (1.0 / 63 + 1.0 / 61)) < 1e-15)
        #expect(abs(byKey["b"]!.score - 1.0 / 62) < 1e-15)
        #expect(abs(byKey["d"]!.score - 1.0 / 63) < 1e-15)
        #expect(byKey["a"]!.ranks == [.lexical: 1, .vector: 2])
        #expect(byKey["b"]!.ranks == [.lexical: 2])
        #expect(byKey["d"]!.ranks == [.vector: 3])
    }

    /// Table: (lexical, vector, k, expected order).
    static let tables: [([String], [String], Int, [String])] = [
        ([], [], 60, []),
        (["x"], [], 60, ["x"]),
        ([], ["y", "x"], 60, ["y", "x"]),
        // Found by both channels at rank 3 beats found by one at rank 1: 2/63 > 1/61.
        (["a", "b", "z"], ["c", "d", "z"], 60, ["z", "a", "c", "b", "d"]),
        // With k = 0 rank 1 dominates: 1/1 > 1/3 + 1/3.
        (["a", "b", "z"], ["c", "d", "z"], 0, ["a", "c", "z", "b", "d"]),
    ]

    @Test(arguments: tables)
    func order(_ lexical: [String], _ vector: [String], _ k: Int, _ expected: [String]) {
        let fused = RRF.fuse([.init(channel: .lexical, keys: lexical), .init(channel: .vector, keys: vector)], k: k)
        #expect(fused.map(\.key) == expected)
    }

    /// Lists from two corpora at equal standing interleave: A1 B1 A2 B2 …
    @Test func listsOfTwoCorporaInterleave() {
        let a = (0..<3).map { PassageKey(corpus: 0, row: Int32($0)) }
        let b = (0..<3).map { PassageKey(corpus: 1, row: Int32(10 + $0)) }
        let fused = RRF.fuse([.init(channel: .lexical, keys: a), .init(channel: .lexical, keys: b)])
        #expect(fused.map(\.key) == [a[0], b[0], a[1], b[1], a[2], b[2]])
        #expect(fused[0].score == fused[1].score)
        #expect(fused[0].score > fused[2].score)
    }
}
