import Testing
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
