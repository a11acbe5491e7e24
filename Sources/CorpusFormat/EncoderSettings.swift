import Foundation

/// How a BERT-family sentence encoder turns text into one vector, beyond the shape its
/// `config.json` gives: the tokenizer's normalization, the longest input, the pooling, and the
/// prompts put before queries and passages. It travels signed in the embedder artifact
/// (`EmbedderManifest.encoder`), so a client embeds queries exactly as the publisher embedded
/// the corpus, whatever sentence-transformers files the model folder had.
///
/// Only integers, booleans and strings: it is part of a signed canonical document.
public struct EncoderSettings: Codable, Hashable, Sendable {
    public enum Pooling: String, Codable, Hashable, Sendable {
        /// The `[CLS]` token's final hidden state (bge, arctic-embed).
        case cls
        /// The mean of every token's final hidden state (all-MiniLM-L6-v2).
        case mean
    }

    public var pooling: Pooling
    /// Whether sentence-transformers scales its output to unit length (a `Normalize` module).
    /// Corpus vectors are always unit length; this decides only what `corpusd embed` prints.
    public var normalize: Bool
    /// The longest token sequence, `[CLS]` and `[SEP]` included (`max_seq_length`).
    public var maxTokens: Int
    public var lowercase: Bool
    public var stripAccents: Bool
    /// Whether CJK ideographs are split into words of their own (`handle_chinese_chars`).
    public var chineseCharacters: Bool
    /// Put before every query, e.g. `"query: "`.
    public var queryPrompt: String
    /// Put before every passage; empty for every model this project knows.
    public var passagePrompt: String

    public init(pooling: Pooling, normalize: Bool = true, maxTokens: Int, lowercase: Bool = true, stripAccents: Bool = true,
                chineseCharacters: Bool = true, queryPrompt: String = "", passagePrompt: String = "") {
        self.pooling = pooling
        self.normalize = normalize
        self.maxTokens = maxTokens
        self.lowercase = lowercase
        self.stripAccents = stripAccents
        self.chineseCharacters = chineseCharacters
        self.queryPrompt = queryPrompt
        self.passagePrompt = passagePrompt
    }

    /// What an artifact without settings means: the all-MiniLM-L6-v2 way, the only one artifacts
    /// of the first format could describe (uncased WordPiece, 256 tokens, mean pooling, unit
    /// length, no prompts). A manifest leaves out settings equal to these, so that model's digest
    /// is the same as it always was.
    public static let meanPooledUncased = EncoderSettings(pooling: .mean, maxTokens: 256)

    /// Bounds every decoder checks: room for `[CLS]` and `[SEP]`, at most BERT's longest
    /// position table in common use (8192), prompts of a sentence's size.
    public func validate() throws {
        guard (2...8192).contains(maxTokens) else {
            throw FormatError.malformed(what: "embedder manifest", reason: "encoder maxTokens \(maxTokens) out of range")
        }
        for prompt in [queryPrompt, passagePrompt] where prompt.utf8.count > 1024 {
            throw FormatError.malformed(what: "embedder manifest", reason: "an encoder prompt is longer than 1024 bytes")
        }
    }
}
