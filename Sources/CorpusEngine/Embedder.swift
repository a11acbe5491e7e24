import CorpusFormat

/// Turns text into fixed-size, L2-normalized vectors. The publisher embeds passages with it
/// when building, and the engine embeds queries with the same one when searching.
public protocol Embedder: Sendable {
    /// Stable name recorded in manifests; a query embedder must match the corpus's.
    var id: String { get }
    var dimension: Int { get }
    /// The digest of the model artifact the embedder was loaded from (`EmbedderManifest`), which
    /// corpus manifests record in `embedder.digest`; nil for model-free embedders.
    var modelDigest: SHA256Digest? { get }
    /// Embeds a batch of passages; every result has `dimension` values and unit length (or is all
    /// zero for empty text).
    func embed(_ texts: [String]) throws -> [[Float]]
    /// Embeds a batch of queries, as `embed` but with what the model puts before a query (its
    /// query prompt, e.g. `"query: "`); the same as `embed` for a model without one.
    func embedQueries(_ texts: [String]) throws -> [[Float]]
}

extension Embedder {
    public var modelDigest: SHA256Digest? { nil }
    public func embedQueries(_ texts: [String]) throws -> [[Float]] { try embed(texts) }
}
