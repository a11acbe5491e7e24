import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusEngine

@Suite struct MiniLMEmbedderTests {
    /// The same vectors as sentence-transformers, to cosine ≥ 0.9999, for every golden row,
    /// all embedded in one batch (so rows of different lengths share a forward pass).
    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func goldenVectors() throws {
        let golden = try MiniLMFixtures.golden()
        let embedder = try MiniLMFixtures.embedder()
        #expect(embedder.id == "all-MiniLM-L6-v2")
        let vectors = try embedder.embed(golden.rows.map(\.text))
        #expect(vectors.count == golden.rows.count)
        for (i, row) in golden.rows.enumerated() {
            #expect(vectors[i].count == embedder.dimension)
            let cosine = MiniLMFixtures.cosine(vectors[i], row.vector)
            #expect(cosine >= 0.9999, "row \(i): \(row.text.debugDescription) cosine \(cosine)")
            let norm = vectors[i].reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(norm - 1) < 1e-4)
        }
    }

    /// A text's vector does not depend on what else is in its batch or how batches are cut.
    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func batchingDoesNotChangeVectors() throws {
        var embedder = try MiniLMFixtures.embedder()
        let texts = ["A man is eating food.", "Readers do not block writers.", "", "数据库 全文 搜索"]
        let together = try embedder.embed(texts)
        embedder.batchTokenBudget = 1
        let apart = try embedder.embed(texts)
        embedder.workers = 1
        embedder.batchTokenBudget = 4096
        let serial = try embedder.embed(texts)
        for i in texts.indices {
            for j in 0..<embedder.dimension {
                #expect(abs(together[i][j] - apart[i][j]) < 1e-5)
                #expect(abs(together[i][j] - serial[i][j]) < 1e-5)
            }
        }
    }

    /// One chunk of more tokens than the feed-forward layer takes at a time (its rows cut into
    /// blocks, the last one short) gives each text the vector it gets alone.
    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func aChunkLongerThanAFeedForwardBlockGivesEachTextItsOwnVector() throws {
        var embedder = try MiniLMFixtures.embedder()
        let texts = (0..<7).map { i in
            String(repeating: "Passage \(i) says that readers do not block writers in this database. ", count: 6 + i % 3)
        }
        embedder.workers = 1
        embedder.batchTokenBudget = 100_000
        let lengths = texts.map { embedder.tokenize($0).count }
        try #require(lengths.reduce(0, +) > BERTEncoder.feedForwardRows + 1 && lengths.reduce(0, +) % BERTEncoder.feedForwardRows != 0)
        let together = try embedder.embed(texts)
        embedder.batchTokenBudget = 1
        let apart = try embedder.embed(texts)
        for i in texts.indices {
            #expect(MiniLMFixtures.cosine(together[i], apart[i]) > 0.99999, "text \(i)")
        }
    }

    /// Similar sentences land closer than unrelated ones: the vectors carry meaning, not words.
    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func paraphrasesAreCloserThanUnrelatedText() throws {
        let embedder = try MiniLMFixtures.embedder()
        let v = try embedder.embed(["A man is eating food.", "Someone has a meal.", "The stock market fell sharply."])
        #expect(MiniLMFixtures.cosine(v[0], v[1]) > MiniLMFixtures.cosine(v[0], v[2]) + 0.2)
    }

    @Test func missingWeightsSayToRunFetchModel() throws {
        let dir = TempDirectory("minilm-missing")
        _ = try dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n")
        let before = DirectorySnapshot(dir.path)
        let error = #expect(throws: EncoderError.self) {
            try BERTEmbedder(modelDirectory: URL(fileURLWithPath: dir.path), id: MiniLMEmbedder.identifier)
        }
        #expect(error == .modelMissing(directory: dir.path, file: "model.safetensors"))
        #expect("\(error!)".contains("run scripts/fetch-model.sh"))
        #expect(DirectorySnapshot(dir.path) == before)
    }

    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func invalidTokenSequencesAreRefused() throws {
        let embedder = try MiniLMFixtures.embedder()
        for bad: [Int32] in [[], [101, 30522, 102], [Int32](repeating: 101, count: 257)] {
            #expect(throws: EncoderError.invalidTokens(reason: "a token sequence is empty, longer than 256, or has an id outside the vocabulary")) {
                try embedder.embed(tokenized: [[101, 102], bad])
            }
        }
    }

    static let chunkCases: [([Int], Int, Int, [Range<Int>])] = [
        ([12], 2048, 2, [0..<1]),
        ([128, 128, 128, 128], 2048, 2, [0..<2, 2..<4]),
        ([128, 128, 128, 128], 2048, 1, [0..<4]),
        ([128, 128, 128, 128], 200, 1, [0..<1, 1..<2, 2..<3, 3..<4]),
        ([256, 10, 10, 256], 100, 2, [0..<1, 1..<3, 3..<4]),
        ([5, 5, 5], 2048, 2, [0..<2, 2..<3]),
        ([], 2048, 2, []),
    ]

    @Test(arguments: chunkCases)
    func batchesAreCutForEveryWorker(_ lengths: [Int], _ budget: Int, _ workers: Int, _ expected: [Range<Int>]) {
        #expect(BERTEmbedder.chunks(lengths: lengths, budget: budget, workers: workers) == expected)
    }

    @Test func flopCountMatchesTheArchitecture() {
        // Per token and layer: QKV 2·384·1152, output 2·384·384, feed-forward 2·2·384·1536;
        // attention 2·2·n·384 per token for a sequence of n.
        let perTokenLayer = 2.0 * 384 * (1152 + 384 + 2 * 1536)
        #expect(BERTEmbedder.encoderFLOPs(tokenCounts: [1]) == 6 * (perTokenLayer + 4 * 384))
        #expect(BERTEmbedder.encoderFLOPs(tokenCounts: [10, 10]) == 2 * 6 * 10 * (perTokenLayer + 4 * 10 * 384))
    }
}
