import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusEngine

/// The encoder against the NumPy reference (scripts/bert_reference.py, itself checked against
/// all-MiniLM-L6-v2's real weights) on random-weight models in bge-small's and arctic-embed-m's
/// shapes, each weight encoding: identical token ids, cosine ≥ 0.99999 for every golden text,
/// as a passage and as a query with the model's query prompt.
@Suite struct RandomModelGoldenTests {
    /// The reference itself, on all-MiniLM-L6-v2's real weights: the same ids as Hugging Face's
    /// tokenizer and cosine ≥ 0.99999 against sentence-transformers' vectors for every golden row.
    @Test(.enabled(if: RandomModels.available, "\(RandomModels.absentMessage)"))
    func theReferenceMatchesSentenceTransformersOnMiniLM() throws {
        let r = try ProcessRunner.run(RandomModels.python, [RandomModels.script, "check-minilm", "--model", MiniLMFixtures.modelDirectory.path,
                                                            "--golden", MiniLMFixtures.goldenPath])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains(#""ids_differ": []"#), "\(r.stdout)")
    }

    static let cases: [(RandomModels.Shape, RandomModels.Encoding)] =
        RandomModels.Shape.allCases.flatMap { s in RandomModels.Encoding.allCases.map { (s, $0) } }

    @Test(.enabled(if: RandomModels.available, "\(RandomModels.absentMessage)"), arguments: cases)
    func sameIdsAndVectorsAsTheNumPyReference(_ shape: RandomModels.Shape, _ encoding: RandomModels.Encoding) throws {
        let folder = try RandomModels.folder(shape, encoding)
        let reference = try RandomModels.reference(shape, encoding)
        let url = URL(fileURLWithPath: folder)
        var settings: EncoderSettings?
        if !reference.query_prompt_in_folder {
            // As a publisher declares it in catalog.json for a folder without prompts.
            let configuration = try BERTConfiguration(json: Data(contentsOf: url.appendingPathComponent("config.json")))
            settings = try SentenceTransformersSettings.read(folder: url, configuration: configuration)
            #expect(settings?.queryPrompt == "")
            settings?.queryPrompt = reference.query_prompt
        }
        let embedder = try BERTEmbedder(modelDirectory: url, id: shape.id, settings: settings)
        #expect(embedder.dimension == shape.dimension)
        #expect(embedder.settings.pooling == .cls && embedder.settings.maxTokens == reference.max_tokens)
        #expect(embedder.settings.queryPrompt == reference.query_prompt)
        // Half-float weights were widened into buffers of their own; the mapping is let go.
        #expect((embedder.encoder.weights.file == nil) == (encoding != .f32))

        let texts = reference.rows.map(\.text)
        for row in reference.rows {
            #expect(embedder.tokenize(row.text) == row.ids, "\(row.text.debugDescription)")
            #expect(embedder.tokenizeQuery(row.text) == row.query_ids, "query \(row.text.debugDescription)")
        }
        let passages = try embedder.embed(texts)
        let queries = try embedder.embedQueries(texts)
        for (i, row) in reference.rows.enumerated() {
            let p = RandomModels.cosine(passages[i], row.vector), q = RandomModels.cosine(queries[i], row.query_vector)
            #expect(p >= 0.99999, "\(shape) \(encoding) passage \(i) \(row.text.prefix(40).debugDescription): cosine \(p)")
            #expect(q >= 0.99999, "\(shape) \(encoding) query \(i) \(row.text.prefix(40).debugDescription): cosine \(q)")
        }
        // std 0.1 spreads texts apart (at BERT's 0.02 every text lands within 0.98 of every
        // other, and a wrong encoder could pass): unrelated golden texts must differ clearly.
        #expect(RandomModels.cosine(passages[0], passages[3]) < 0.95)
    }
}
