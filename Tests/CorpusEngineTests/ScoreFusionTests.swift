import Testing
import CorpusTestSupport
@testable import CorpusEngine

/// Score-based fusion (`SearchOptions.Fusion.convex`, `ScoreFusion`): normalised channel scores
/// combined with the vector weight and its complement (docs/engine.md "Fusion, measured").
@Suite struct ScoreFusionTests {
    typealias List = ReciprocalRankFusion.RankedList<Int>

    @Test func normalisingDividesByTheBestAndKeepsZeroAtZero() {
        #expect(ScoreFusion.normalised([4, 1, 2]) == [1, 0.25, 0.5])
        #expect(ScoreFusion.normalised([7]) == [1])
        #expect(ScoreFusion.normalised([0, 0]) == [1, 1])
        #expect(ScoreFusion.normalised([]) == [])
        // Two scores a hair apart stay a hair apart (the observed min-max made them 1 and 0).
        let close = ScoreFusion.normalised([0.5, 0.4999999])
        #expect(close[0] == 1 && close[1] > 0.9999)
    }

    /// RRF gives a channel's first and second the same gap whatever their scores; score fusion
    /// keeps the margin: a vector winner by far beats the lexical first it barely trails in RRF.
    @Test func marginsDecideWhereRanksTie() {
        let vector = List(channel: .vector, keys: [1, 2, 3], scores: [1, 0.1, 0])
        let lexical = List(channel: .lexical, keys: [2, 1, 3], scales: [1, 0.5, 1], scores: [1, 0.9, 0])
        let fused = ScoreFusion.fuse([vector, lexical], weights: [.vector: 0.7, .lexical: 0.3])
        #expect(fused.map(\.key) == [1, 2, 3])
        #expect(abs(fused[0].score - (0.7 * 1 + 0.3 * 0.5 * 0.9)) < 1e-12)
        #expect(abs(fused[1].score - (0.7 * 0.1 + 0.3 * 1)) < 1e-12)
        #expect(fused[0].ranks == [.vector: 1, .lexical: 2])
        // The same lists by RRF put the lexical first on top (2: 1/62 + 1/61 > 1: 1/61 + 0.5/62).
        #expect(ReciprocalRankFusion.fuse([vector, lexical]).first?.key == 2)
    }

    /// Through the library: the hashing embedder's cosines are lexical too, so `fusion` (score
    /// fusion) does not apply to corpora embedded with it (`modelFreeFusion` does; it lost to
    /// BM25 alone on them in `make eval`), nor to a lexical-only search (nothing to combine).
    @Test func hashingAndLexicalOnlySearchesIgnoreScoreFusion() async throws {
        let home = TempDirectory("score-fusion")
        try PackFixture(id: "c", texts: ["a.md": ["zebra crossing rules", "how pedestrians cross a busy road safely", "zebra stripes"]]).install(home: home.path)
        let library = CorpusLibrary(home: home.path)
        for lexicalOnly in [false, true] {
            var convex = SearchOptions(k: 3, lexicalOnly: lexicalOnly)
            convex.fusion = .convex(vectorWeight: 0.8)
            var rrf = SearchOptions(k: 3, lexicalOnly: lexicalOnly)
            rrf.fusion = .reciprocalRank
            let a = try await library.search("zebra stripes", options: convex)
            let b = try await library.search("zebra stripes", options: rrf)
            #expect(!a.isEmpty && a.first?.text == "zebra stripes")
            #expect(a.map(\.passageID) == b.map(\.passageID) && a.map(\.score) == b.map(\.score))
        }
        #expect(SearchOptions().fusion == .convex(vectorWeight: 0.8))
    }
}
