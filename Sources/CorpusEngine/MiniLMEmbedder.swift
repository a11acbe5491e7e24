import Foundation

/// The all-MiniLM-L6-v2 sentence encoder: semantic 384-dimensional vectors, the same as
/// sentence-transformers computes (WordPiece tokens, BERT encoder, mean pooling, L2 norm).
///
/// Weights are read from a model folder holding `model.safetensors` and `vocab.txt`, which
/// `scripts/fetch-model.sh` puts in `models/all-MiniLM-L6-v2/`. Matrix multiplies go to
/// OpenBLAS; a batch is encoded in one pass per `batchTokenBudget` tokens.
public struct MiniLMEmbedder: Embedder {
    public static let identifier = "all-MiniLM-L6-v2"
    /// sentence-transformers' `max_seq_length` for this model, `[CLS]` and `[SEP]` included.
    public static let maxTokens = 256

    public let id = MiniLMEmbedder.identifier
    public let dimension = 384
    public let tokenizer: WordPieceTokenizer
    /// Tokens encoded per forward pass: bounds scratch memory (about 30 KB a token) while
    /// keeping the matrix multiplies large enough to use every core.
    public var batchTokenBudget = 4096
    let encoder: MiniLMEncoder

    /// Loads the model from `modelDirectory`; throws `MiniLMError.modelMissing` (whose message
    /// says to run `scripts/fetch-model.sh`) when the weights or vocabulary are absent.
    public init(modelDirectory: URL) throws {
        for file in ["model.safetensors", "vocab.txt"] {
            guard FileManager.default.fileExists(atPath: modelDirectory.appendingPathComponent(file).path) else {
                throw MiniLMError.modelMissing(directory: modelDirectory.path, file: file)
            }
        }
        tokenizer = try WordPieceTokenizer(vocabularyFile: modelDirectory.appendingPathComponent("vocab.txt"))
        let file = try SafeTensorsFile(path: modelDirectory.appendingPathComponent("model.safetensors").path)
        encoder = MiniLMEncoder(weights: try MiniLMWeights(file: file))
    }

    /// Token ids as the model sees them: `[CLS] … [SEP]`, at most `maxTokens`.
    public func tokenize(_ text: String) -> [Int32] {
        tokenizer.encode(text, maxTokens: Self.maxTokens)
    }

    public func embed(_ texts: [String]) throws -> [[Float]] {
        try embed(tokenized: texts.map(tokenize))
    }

    /// Embeds already tokenized texts (from `tokenize`), batching up to `batchTokenBudget` tokens.
    public func embed(tokenized sequences: [[Int32]]) throws -> [[Float]] {
        let limit = encoder.weights.configuration.vocabularySize
        for ids in sequences where ids.isEmpty || ids.count > Self.maxTokens || ids.contains(where: { $0 < 0 || Int($0) >= limit }) {
            throw MiniLMError.invalidVocabulary(reason: "a token sequence is empty, longer than \(Self.maxTokens), or has an id outside the vocabulary")
        }
        var vectors: [[Float]] = []
        vectors.reserveCapacity(sequences.count)
        var start = 0
        while start < sequences.count {
            var end = start, tokens = 0
            while end < sequences.count, end == start || tokens + sequences[end].count <= batchTokenBudget {
                tokens += sequences[end].count
                end += 1
            }
            vectors += encoder.encode(Array(sequences[start..<end]))
            start = end
        }
        return vectors
    }

    /// Floating-point operations of the encoder's matrix multiplies for sequences of these
    /// token counts (multiply and add counted apart), for GFLOP/s figures.
    public static func encoderFLOPs(tokenCounts: [Int]) -> Double {
        MiniLMEncoder.flops(lengths: tokenCounts)
    }
}
