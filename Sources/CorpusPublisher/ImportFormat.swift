import CorpusFormat

/// The other apps' corpus formats `corpusd build --from` and a catalog entry's `from` convert
/// into a CorpusSync bundle (docs/import.md).
public enum ImportFormat: String, Sendable, CaseIterable, Codable {
    /// The reader app's `.corpus.zip`: `corpus_meta.json`, `chunks.json`, `embeddings.npy`.
    case corpuskit
    /// The knowledge app's `Corpus/` folder: `manifest.json`, SQLite `.pack` files, `.vectors`.
    case knowledgepress
    /// The browser's library export: a zip of Markdown pages and `knowledge.json`.
    case lumen

    /// How messages name the source.
    public var sourceName: String {
        switch self {
        case .corpuskit: "reader-app corpus"
        case .knowledgepress: "knowledge-app folder"
        case .lumen: "browser export"
        }
    }

    /// The app the source comes from.
    public var appName: String {
        switch self {
        case .corpuskit: "reader app"
        case .knowledgepress: "knowledge app"
        case .lumen: "browser"
        }
    }

    /// True when the source is a folder (else a zip file).
    public var sourceIsFolder: Bool { self == .knowledgepress }

    /// The formats as a usage line lists them.
    public static let names = allCases.map(\.rawValue).joined(separator: "|")

    /// The format a `--from` value or a catalog's `from` names.
    public static func named(_ name: String) -> ImportFormat? { ImportFormat(rawValue: name) }
}
