import Testing
import CorpusTestSupport
@testable import CorpusEngine

/// Fusion (RRF here; the convex default scales the same way) weighs a lexical hit holding only
/// part of the query at `SearchOptions.defaultRelaxedLexicalWeight` (0.5, docs/engine.md "Fusion, measured").
@Suite struct PartialMatchWeightTests {
    @Test func perKeyScalesMultiplyTheirContributions() {
        typealias List = ReciprocalRankFusion.RankedList<Int>
        let lexical = List(channel: .lexical, keys: [1, 2], scales: [1, 0.5])
        let fused = ReciprocalRankFusion.fuse([lexical], k: 60)
        #expect(fused.map(\.score) == [1.0 / 61, 0.5 / 62])
    }

    /// Under RRF, a passage the vector channel ranks second beats the lexical channel's first when
    /// that one holds only one of the query's words: with equal weights the two would tie on score
    /// and the lexical one win on key order. (RRF is asked for: the hashing embedder's default is
    /// lexical-first, `ModelFreeFusionTests`.)
    @Test func aPartialLexicalMatchCountsHalf() async throws {
        let home = TempDirectory("partial-weight")
        try PackFixture(id: "c", texts: ["a.md": ["zebra crossing rules", "how pedestrians cross a busy road safely"]]).install(home: home.path)
        let library = CorpusLibrary(home: home.path)
        var options = SearchOptions(k: 2)
        options.modelFreeFusion = .reciprocalRank
        let hits = try await library.search("zebra stripes", options: options)
        let lexicalOnlyHit = try #require(hits.first { $0.text == "zebra crossing rules" })
        #expect(lexicalOnlyHit.lexicalRank == 1)
        #expect(SearchOptions().relaxedLexicalWeight == 0.5)
        // Its lexical contribution is half of 1/61 (stage "all but one" is skipped for 2 words, so
        // "any word" matched it).
        let vectorPart = lexicalOnlyHit.vectorRank.map { 1.0 / Double(60 + $0) } ?? 0
        #expect(abs(lexicalOnlyHit.score - (0.5 / 61 + vectorPart)) < 1e-12, "\(lexicalOnlyHit)")
    }
}
