/// What a search looks at and how much it returns.
public struct SearchOptions: Sendable, Hashable {
    /// How many fused hits to return.
    public var k: Int
    /// How many passages each channel contributes per corpus before fusion (N).
    public var perChannelDepth: Int
    /// The corpora to search, each as `id` (any remote) or `remote/id`; empty means all installed.
    public var corpora: [String]
    /// Search every corpus with the lexical channel only (no query embedding at all).
    public var lexicalOnly: Bool
    /// Corpora (`id` or `remote/id`) to search lexical-only, e.g. those built with another embedder.
    public var lexicalOnlyCorpora: Set<String>
    /// The RRF constant k.
    public var rrfK: Int
    /// Per-channel depths overriding `perChannelDepth` (0 leaves that channel out), for measuring
    /// fusion choices (`corpus-bench eval`, docs/engine.md).
    public var lexicalDepth: Int?
    public var vectorDepth: Int?
    /// Weighted RRF: each channel's contributions are multiplied by its weight (default 1).
    public var channelWeights: [Channel: Double] = [:]
    /// The weight of a lexical hit that holds only part of the query (the ladder's all-but-one and
    /// any-word stages) relative to one holding all of it: weak evidence, which a paraphrased
    /// question mostly produces (docs/engine.md "Fusion, measured").
    public var relaxedLexicalWeight: Double = SearchOptions.defaultRelaxedLexicalWeight
    public static let defaultRelaxedLexicalWeight = 0.5
    /// Only passages whose timestamp is in this window (`--since`/`--until`, `TimeWindow`).
    public var timeWindow: TimeWindow?
    /// How the channels' lists become one ranking when a model's vector list takes part
    /// (docs/engine.md "Fusion, measured").
    public var fusion: Fusion = SearchOptions.defaultFusion
    /// Normalised scores, dense 0.8 and BM25 0.2: the best of the measured fusions, and above dense alone.
    public static let defaultFusion = Fusion.convex(vectorWeight: 0.8)
    /// How they become one ranking when the only vectors are the model-free hashing embedder's,
    /// whose cosines are lexical too (docs/engine.md "Fusion, measured").
    public var modelFreeFusion: Fusion = SearchOptions.defaultModelFreeFusion
    /// BM25's order, the hashing vectors breaking its ties and following it: the only rule measured
    /// at or above BM25 alone on both `make eval` sets, and one that cannot rank a passage below BM25 alone.
    public static let defaultModelFreeFusion = Fusion.lexicalFirst

    /// Reciprocal rank fusion (ranks only); a convex combination of the channels' normalised
    /// scores (each over its list's best) with the vector channel weighted `vectorWeight` and the
    /// lexical one `1 - vectorWeight` (`ScoreFusion`); or the lexical ranking with the vector
    /// lists as its tie-break and its tail (`LexicalFirstFusion`). A search without any vector
    /// list (lexical only) always uses RRF, whose ladder-stage order is what compares corpora
    /// lexically.
    public enum Fusion: Sendable, Hashable {
        case reciprocalRank
        case convex(vectorWeight: Double)
        case lexicalFirst
    }

    public init(k: Int = 10, perChannelDepth: Int = 50, corpora: [String] = [], lexicalOnly: Bool = false,
                lexicalOnlyCorpora: Set<String> = [], rrfK: Int = ReciprocalRankFusion.defaultK) {
        self.k = k
        self.perChannelDepth = perChannelDepth
        self.corpora = corpora
        self.lexicalOnly = lexicalOnly
        self.lexicalOnlyCorpora = lexicalOnlyCorpora
        self.rrfK = rrfK
    }
}
