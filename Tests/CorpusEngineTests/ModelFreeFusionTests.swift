import Testing
import CorpusTestSupport
@testable import CorpusEngine

/// With the model-free hashing embedder, hybrid search is never below BM25 alone: a passage of
/// the lexical list keeps its lexical place, the hashing vectors only break its ties and follow it
/// (`SearchOptions.defaultModelFreeFusion`, `LexicalFirstFusion`; docs/engine.md "Fusion, measured").
@Suite struct ModelFreeFusionTests {
    typealias List = ReciprocalRankFusion.RankedList<PassageKey>

    struct Case: CustomTestStringConvertible {
        var name: String
        var lexical: [Int32]
        var lexicalRanks: [Int]?
        var vector: [Int32]
        /// The fused order the rule gives.
        var expected: [Int32]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // The vector channel reverses BM25: RRF would lift BM25's last (vector 1) above its first.
        Case(name: "vectors reversed", lexical: [1, 2, 3, 4, 5, 6], vector: [6, 5, 4, 3, 2, 1], expected: [1, 2, 3, 4, 5, 6]),
        // Vector-only passages fill in after the lexical list, however high the vectors rank them.
        Case(name: "vector-only passages follow", lexical: [1, 2], vector: [9, 8, 2, 7], expected: [1, 2, 9, 8, 7]),
        // Equal lexical ranks (two corpora at the same ladder stage and rank) are ordered by the vectors.
        Case(name: "ties broken by vectors", lexical: [1, 2, 3, 4], lexicalRanks: [1, 1, 2, 2], vector: [2, 4, 3], expected: [2, 1, 4, 3]),
        // A tie with no vector evidence falls back to the key order.
        Case(name: "ties without vectors", lexical: [3, 1], lexicalRanks: [1, 1], vector: [], expected: [1, 3]),
        Case(name: "no lexical hit", lexical: [], vector: [5, 4], expected: [5, 4]),
    ]

    /// The default fusion for a search whose only vectors are the hashing embedder's (`fromModel:
    /// false`) keeps BM25's order: no passage BM25 ranks is placed below where BM25 alone puts it.
    @Test(arguments: cases) func hashingVectorsNeverMoveALexicalHitDown(_ c: Case) {
        var lists: [List] = []
        if !c.lexical.isEmpty {
            lists.append(List(channel: .lexical, keys: c.lexical.map { PassageKey(corpus: 0, row: $0) }, ranks: c.lexicalRanks))
        }
        if !c.vector.isEmpty { lists.append(List(channel: .vector, keys: c.vector.map { PassageKey(corpus: 0, row: $0) })) }
        let fused = CorpusLibrary.fuse(lists, options: SearchOptions(), fromModel: false)
        #expect(fused.map(\.key.row) == c.expected)
        // The scores fall with the order, so a caller sorting by score sees the same ranking.
        #expect(fused.map(\.score) == fused.map(\.score).sorted(by: >))
        // The ranks a hit reports are its channels' own.
        for f in fused {
            if let i = c.lexical.firstIndex(of: f.key.row) { #expect(f.ranks[.lexical] == c.lexicalRanks?[i] ?? i + 1) }
            if let i = c.vector.firstIndex(of: f.key.row) { #expect(f.ranks[.vector] == i + 1) }
        }
    }

    /// A model's vectors keep the measured default (score fusion), which may reorder BM25's list.
    @Test func aModelsVectorsAreStillFusedByScore() {
        let lexical = List(channel: .lexical, keys: [1, 2].map { PassageKey(corpus: 0, row: $0) }, scores: [1, 0.9])
        let vector = List(channel: .vector, keys: [2, 1].map { PassageKey(corpus: 0, row: $0) }, scores: [0.9, 0.1])
        #expect(CorpusLibrary.fuse([lexical, vector], options: SearchOptions(), fromModel: true).map(\.key.row) == [2, 1])
        #expect(SearchOptions().fusion == .convex(vectorWeight: 0.8))
        #expect(SearchOptions().modelFreeFusion == .lexicalFirst)
    }

    /// Through the library on a real hashing-embedder corpus: for every query, default hybrid
    /// search ranks BM25's hits exactly as BM25 alone does, ahead of anything only the vectors
    /// found. The fixture is one where the fusion used before (RRF) does move a BM25 hit down.
    @Test func hybridSearchKeepsBM25sRankingOnAHashingCorpus() async throws {
        let home = TempDirectory("model-free-fusion")
        // The hashing vectors weigh every word alike (no IDF) and favour short passages, so they
        // disagree with BM25: for "habitat", RRF lifted "habitat loss threatens many species"
        // (BM25 4, vectors 2) over "quokka quokka quokka habitat" (BM25 3, vectors 5).
        try PackFixture(id: "c", texts: ["a.md": [
            "quokka quokka quokka habitat",
            "quokka habitat",
            "habitat quokka",
            "habitat loss threatens many species",
            "a habitat for birds by the river",
            "the weather was fine for a long walk along the river",
            "river habitat surveys count the birds each spring",
            "small marsupials hop across the island at night",
        ]]).install(home: home.path)
        let library = CorpusLibrary(home: home.path)
        var rrfMovedALexicalHit = false
        for query in ["quokka habitat", "habitat", "river birds", "walk along the river", "island marsupials at night"] {
            let bm25 = try await library.search(query, options: SearchOptions(k: 10, lexicalOnly: true))
            let hybrid = try await library.search(query, options: SearchOptions(k: 10))
            #expect(!bm25.isEmpty)
            #expect(Array(hybrid.prefix(bm25.count)).map(\.passageID) == bm25.map(\.passageID), "\(query)")
            var rrf = SearchOptions(k: 10)
            rrf.modelFreeFusion = .reciprocalRank
            let before = try await library.search(query, options: rrf)
            if Array(before.prefix(bm25.count)).map(\.passageID) != bm25.map(\.passageID) { rrfMovedALexicalHit = true }
        }
        #expect(rrfMovedALexicalHit, "the fixture should hold a query where RRF ranks a BM25 hit lower than BM25 alone")
    }
}
