import Testing
import CorpusTestSupport
@testable import CorpusEngine

@Suite struct StopWordAndTieTests {
    @Test(arguments: [
        ("rotate the signing key", ["rotate", "signing", "key"]),
        ("when is high water at springs", ["high", "water", "springs"]),
        ("To be or not to be", ["not"]),
        ("to be or to be", ["to", "be", "or"]),
        ("The THE the", ["The"]),
        ("", []),
    ])
    func stopWordsGoUnlessNothingElseRemains(query: String, expected: [String]) {
        #expect(FTSQuery.contentTokens(FTSQuery.tokens(query)) == expected)
    }

    @Test func equalScoresShareADenseRankAndFuseEqually() {
        typealias List = ReciprocalRankFusion.RankedList<Int>
        let vector = List(channel: .vector, scored: [(1, 0.9), (2, 0.9), (3, 0.5), (4, 0.1)])
        #expect(vector.ranks == [1, 1, 2, 3])
        let fused = ReciprocalRankFusion.fuse([vector], k: 60)
        #expect(fused.map(\.key) == [1, 2, 3, 4])
        #expect(fused[0].score == fused[1].score && fused[0].score == 1.0 / 61)
        #expect(fused[2].score == 1.0 / 62 && fused[3].score == 1.0 / 63)
        #expect(fused.map { $0.ranks[.vector] } == [1, 1, 2, 3])
    }
}

@Suite struct LexicalAcrossCorporaTests {
    /// A passage holding every query word outranks another corpus's passage holding one of them,
    /// even though each is its own corpus's BM25 #1.
    @Test func fullMatchesRankBeforePartialMatchesOfOtherCorpora() async throws {
        let home = TempDirectory("lexical-stage")
        try PackFixture(id: "bread", texts: ["a.md": ["a dense loaf with a tight crumb", "crumb and crust"]]).install(home: home.path)
        try PackFixture(id: "stats", texts: ["b.md": ["dense vectors and sparse vectors"]]).install(home: home.path)
        let hits = try await CorpusLibrary(home: home.path).search("why is my loaf dense", options: SearchOptions(k: 5, lexicalOnly: true))
        try #require(hits.count == 2)
        #expect(hits[0].corpus == "bread" && hits[0].lexicalRank == 1)
        #expect(hits[1].corpus == "stats" && hits[1].lexicalRank == 2)
        #expect(hits[0].score > hits[1].score)
    }
}
