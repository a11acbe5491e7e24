import Foundation
import CorpusFormat

/// A BERT-family sentence encoder (all-MiniLM-L6-v2, bge-small-en-v1.5, snowflake-arctic-embed-m-v1.5,
/// …): the same vectors sentence-transformers computes (WordPiece tokens, BERT encoder, CLS or
/// mean pooling, L2 norm), configured from the model folder (`BERTConfiguration` from
/// `config.json`, `EncoderSettings` from the sentence-transformers files or the signed artifact).
///
/// Weights are read from `model.safetensors` (f32 in place, f16 and bf16 converted once at
/// load) and the vocabulary from `vocab.txt`. Matrix multiplies go to OpenBLAS. A batch is cut
/// into chunks of at most `batchTokenBudget` tokens (and at least as many chunks as cores, when
/// it has that many texts), encoded concurrently, one chunk per core. Loading it puts OpenBLAS
/// in single-threaded mode for the process (see `EncoderKernels`).
public struct BERTEmbedder: Embedder {
    public let id: String
    public var dimension: Int { configuration.hidden }
    public let configuration: BERTConfiguration
    public let settings: EncoderSettings
    public let tokenizer: WordPieceTokenizer
    /// The digest of the artifact the weights came from (`EmbedderManifest`), recorded in the
    /// manifests of corpora built with it; nil for a model folder that was not published.
    public var modelDigest: SHA256Digest?
    /// Most tokens encoded in one forward pass: bounds scratch memory (5 floats a token per
    /// hidden unit, 7.5 KB at 384 wide, 15 KB at 768, plus the feed-forward layer's block of 512
    /// rows, per running chunk; kept for the next call, `ScratchPool`) while keeping the matrix
    /// multiplies large enough to run efficiently.
    public var batchTokenBudget = 2048
    /// Chunks encoded at once; one per core.
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    let encoder: BERTEncoder

    /// Loads the model `id` names from `modelDirectory`. `settings` are the artifact's signed ones;
    /// without them they are read from the folder's sentence-transformers files
    /// (`SentenceTransformersSettings`). Throws `EncoderError.modelMissing` when the weights,
    /// vocabulary or configuration are absent, `.unsupportedSetting` for a value it cannot honour.
    public init(modelDirectory: URL, id: String, settings: EncoderSettings? = nil) throws {
        for file in ["model.safetensors", "vocab.txt", "config.json"] {
            guard FileManager.default.fileExists(atPath: modelDirectory.appendingPathComponent(file).path) else {
                throw EncoderError.modelMissing(directory: modelDirectory.path, file: file)
            }
        }
        guard let config = try ModelFile.read(modelDirectory, BERTConfiguration.file) else {
            throw EncoderError.modelMissing(directory: modelDirectory.path, file: BERTConfiguration.file)
        }
        let configuration = try BERTConfiguration(object: config)
        let settings = try settings ?? SentenceTransformersSettings.read(folder: modelDirectory, configuration: configuration)
        try settings.validate()
        guard settings.maxTokens <= configuration.maxPositions else {
            throw EncoderError.unsupportedSetting(file: "embedder.json", key: "maxTokens", value: "\(settings.maxTokens)",
                                                  supported: "at most max_position_embeddings, \(configuration.maxPositions)")
        }
        var tokenizer = try WordPieceTokenizer(vocabularyFile: modelDirectory.appendingPathComponent("vocab.txt"))
        tokenizer.lowercase = settings.lowercase
        tokenizer.stripAccents = settings.stripAccents
        tokenizer.chineseCharacters = settings.chineseCharacters
        let file = try SafeTensorsFile(path: modelDirectory.appendingPathComponent("model.safetensors").path)
        self.encoder = BERTEncoder(weights: try BERTWeights(file: file, configuration: configuration))
        guard EncoderKernels.blasAvailable else { throw EncoderError.blasMissing(tried: EncoderKernels.blasLibraryNames) }
        self.id = id
        self.configuration = configuration
        self.settings = settings
        self.tokenizer = tokenizer
    }

    /// Token ids of a passage as the model sees them: the passage prompt and the text,
    /// `[CLS] … [SEP]`, at most `settings.maxTokens`.
    public func tokenize(_ text: String) -> [Int32] {
        tokenizer.encode(settings.passagePrompt + text, maxTokens: settings.maxTokens)
    }

    /// Token ids of a query: the query prompt (sentence-transformers puts it before the text as a
    /// string, so it is tokenized with it) and the text.
    public func tokenizeQuery(_ text: String) -> [Int32] {
        tokenizer.encode(settings.queryPrompt + text, maxTokens: settings.maxTokens)
    }

    /// Passage vectors, unit length.
    public func embed(_ texts: [String]) throws -> [[Float]] {
        try embed(tokenized: tokenize(texts, query: false))
    }

    /// Query vectors, unit length: the query prompt applied.
    public func embedQueries(_ texts: [String]) throws -> [[Float]] {
        try embed(tokenized: tokenize(texts, query: true))
    }

    /// What sentence-transformers' `encode` returns for these texts (prompt applied, normalized
    /// only when the model has a Normalize module): what `corpusd embed` prints.
    public func encode(_ texts: [String], query: Bool) throws -> [[Float]] {
        try embed(tokenized: tokenize(texts, query: query), normalize: settings.normalize)
    }

    /// Texts fewer than this a worker are tokenized on the calling thread.
    static let textsPerTokenizingWorker = 8

    /// Token ids of many texts, the texts shared among the workers when there are enough of them.
    /// On one thread, the tokenizing of a batch was a stretch in which the other cores waited for
    /// the forward pass to start: about 1 % of all-MiniLM-L6-v2's passage time, at six layers.
    func tokenize(_ texts: [String], query: Bool) -> [[Int32]] {
        let one = query ? tokenizeQuery : tokenize
        let parts = min(workers, texts.count / Self.textsPerTokenizingWorker)
        guard parts > 1 else { return texts.map(one) }
        var ids = [[Int32]](repeating: [], count: texts.count)
        ids.withUnsafeMutableBufferPointer { buffer in
            // Each part writes only the slots of its own texts.
            nonisolated(unsafe) let slots = buffer
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for i in stride(from: part, to: texts.count, by: parts) { slots[i] = one(texts[i]) }
            }
        }
        return ids
    }

    /// Embeds already tokenized texts (from `tokenize`), batching up to `batchTokenBudget` tokens.
    public func embed(tokenized sequences: [[Int32]]) throws -> [[Float]] {
        try embed(tokenized: sequences, normalize: true)
    }

    func embed(tokenized sequences: [[Int32]], normalize: Bool) throws -> [[Float]] {
        let limit = configuration.vocabularySize, longest = settings.maxTokens
        for ids in sequences where ids.isEmpty || ids.count > longest || ids.contains(where: { $0 < 0 || Int($0) >= limit }) {
            throw EncoderError.invalidTokens(reason: "a token sequence is empty, longer than \(longest), or has an id outside the vocabulary")
        }
        let pooling = settings.pooling
        let chunks = Self.chunks(lengths: sequences.map(\.count), budget: batchTokenBudget, workers: workers)
        // Fewer chunks than cores (one query, a few texts): each chunk's matrix products are split
        // among the cores its siblings leave free.
        let threads = max(1, workers / chunks.count)
        guard chunks.count > 1 else { return encoder.encode(sequences, pooling: pooling, normalize: normalize, threads: threads) }
        let results = ChunkResults(count: chunks.count)
        DispatchQueue.concurrentPerform(iterations: chunks.count) { i in
            results.set(i, encoder.encode(Array(sequences[chunks[i]]), pooling: pooling, normalize: normalize, threads: threads))
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
    public static func encoderFLOPs(tokenCounts: [Int], configuration: BERTConfiguration = BERTConfiguration()) -> Double {
        BERTEncoder.flops(lengths: tokenCounts, configuration: configuration)
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
