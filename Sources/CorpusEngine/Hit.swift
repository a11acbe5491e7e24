/// One search result: a passage of an installed corpus and how it was found.
public struct Hit: Sendable, Hashable {
    /// The corpus id.
    public var corpus: String
    /// The remote (catalog source) it was installed from; `local` for imported bundles.
    public var remote: String
    public var version: String
    /// The passage's stable id (`passages.pid`).
    public var passageID: String
    /// `documents.path`: the source file relative to the folder the corpus was built from.
    public var document: String
    public var documentTitle: String
    /// The heading path, ' > '-separated; empty when none.
    public var section: String
    public var text: String
    /// A short excerpt with the query's terms between « and »; the passage's start when only
    /// the vector channel found it.
    public var snippet: String
    /// The fused score, higher first: normalised scores combined (a model's vectors), 1 / (k + place)
    /// (lexical first, the hashing embedder's), or the sum of 1 / (k + rank) over the channels
    /// that found it (RRF); docs/engine.md "Fusion".
    public var score: Double
    /// 1-based rank within its corpus's lexical list; nil when the lexical channel did not find it.
    public var lexicalRank: Int?
    /// 1-based rank within its corpus's vector list; nil when the vector channel did not find it.
    public var vectorRank: Int?

    public init(corpus: String, remote: String, version: String, passageID: String, document: String,
                documentTitle: String, section: String, text: String, snippet: String, score: Double,
                lexicalRank: Int?, vectorRank: Int?) {
        self.corpus = corpus
        self.remote = remote
        self.version = version
        self.passageID = passageID
        self.document = document
        self.documentTitle = documentTitle
        self.section = section
        self.text = text
        self.snippet = snippet
        self.score = score
        self.lexicalRank = lexicalRank
        self.vectorRank = vectorRank
    }
}
