import Foundation
import CorpusFormat

/// The all-MiniLM-L6-v2 sentence encoder: semantic 384-dimensional vectors, the same as
/// sentence-transformers computes (WordPiece tokens, BERT encoder, mean pooling, L2 norm).
///
/// Weights are read from a model folder holding `model.safetensors` and `vocab.txt`, which
/// `scripts/fetch-model.sh` puts in `models/all-MiniLM-L6-v2/`. Matrix multiplies go to
/// OpenBLAS. A batch is cut into chunks of at most `batchTokenBudget` tokens (and at least as
/// many chunks as cores, when it has that many texts), encoded concurrently, one chunk per core.
/// Loading it puts OpenBLAS in single-threaded mode for the process (see `MiniLMKernels`).
public struct MiniLMEmbedder: Embedder {
    public static let identifier = "all-MiniLM-L6-v2"
    /// sentence-transformers' `max_seq_length` for this model, `[CLS]` and `[SEP]` included.
    public static let maxTokens = 256

    public let id = MiniLMEmbedder.identifier
    public let dimension = 384
    public let tokenizer: WordPieceTokenizer
    /// The digest of the artifact the weights came from (`EmbedderManifest`), recorded in the
    /// manifests of corpora built with it; nil for a model folder that was not published.
    public var modelDigest: SHA256Digest?
    /// Most tokens encoded in one forward pass: bounds scratch memory (about 15 KB a token
    /// per running chunk) while keeping the matrix multiplies large enough to run efficiently.
    public var batchTokenBudget = 2048
    /// Chunks encoded at once; one per core.
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
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
        guard MiniLMKernels.blasAvailable else { throw MiniLMError.blasMissing(tried: MiniLMKernels.blasLibraryNames) }
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
            throw MiniLMError.invalidTokens(reason: "a token sequence is empty, longer than \(Self.maxTokens), or has an id outside the vocabulary")
        }
        let chunks = Self.chunks(lengths: sequences.map(\.count), budget: batchTokenBudget, workers: workers)
        guard chunks.count > 1 else { return encoder.encode(sequences) }
        let results = ChunkResults(count: chunks.count)
        DispatchQueue.concurrentPerform(iterations: chunks.count) { i in
            results.set(i, encoder.encode(Array(sequences[chunks[i]])))
        }
        return results.joined()
    }

    /// Consecutive ranges of sequences, each of at most `budget` tokens (a longer single
    /// sequence gets a range of its own), closed once it holds a worker's share of the tokens.
    static func chunks(lengths: [Int], budget: Int, workers: Int) -> [Range<Int>] {
        let total = lengths.reduce(0, +)
        let perWorker = (total + workers - 1) / max(workers, 1)
        var chunks: [Range<Int>] = []
        var start = 0
        while start < lengths.count {
            var end = start, tokens = 0
            while end < lengths.count, end == start || (tokens < perWorker && tokens + lengths[end] <= budget) {
                tokens += lengths[end]
                end += 1
            }
            chunks.append(start..<end)
            start = end
        }
        return chunks
    }

    /// Floating-point operations of the encoder's matrix multiplies for sequences of these
    /// token counts (multiply and add counted apart), for GFLOP/s figures.
    public static func encoderFLOPs(tokenCounts: [Int]) -> Double {
        MiniLMEncoder.flops(lengths: tokenCounts)
    }
}

/// One slot per chunk, filled by concurrent workers.
private final class ChunkResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [[[Float]]]

    init(count: Int) { slots = Array(repeating: [], count: count) }

    func set(_ index: Int, _ vectors: [[Float]]) {
        lock.lock()
        slots[index] = vectors
        lock.unlock()
    }

    func joined() -> [[Float]] {
        lock.lock()
        defer { lock.unlock() }
        return slots.flatMap { $0 }
    }
}
