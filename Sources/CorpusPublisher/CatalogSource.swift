import Foundation
import CorpusFormat
import CorpusEngine

/// `CATALOG_DIR/catalog.json`: what `corpusd publish` publishes (docs/publishing.md).
///
/// Each corpus is built from a `source` folder (absolute, or relative to CATALOG_DIR) or copied from a
/// prebuilt `bundle`, never both. This file is the operator's input, not a signed document:
/// it is validated strictly so mistakes are caught before anything is written.
public struct CatalogSource: Decodable, Sendable {
    public var id: String
    public var title: String
    public var corpora: [Entry]
    /// Embedder models corpora may name: each an id and the folder holding its files.
    public var embedders: [EmbedderSource]?

    /// `embedders[]`: a model folder (`model.safetensors`, `vocab.txt`, `config.json`,
    /// `tokenizer_config.json`, and the sentence-transformers files), absolute or relative to
    /// CATALOG_DIR, e.g. `../models/all-MiniLM-L6-v2`; and the query and passage prompts the
    /// model's users put before texts, for a model whose folder does not name them
    /// (bge-small-en-v1.5's query instruction).
    public struct EmbedderSource: Decodable, Sendable {
        public var id: String
        public var source: String
        public var queryPrompt: String?
        public var passagePrompt: String?

        enum CodingKeys: String, CodingKey {
            case id, source
            case queryPrompt = "query_prompt"
            case passagePrompt = "passage_prompt"
        }
    }

    public struct Entry: Decodable, Sendable {
        public var id: String
        public var version: CorpusVersion
        public var title: String?
        public var description: String?
        public var language: String?
        public var license: String?
        /// A folder of documents, absolute or relative to CATALOG_DIR (may lead outside it, e.g. `../docs`).
        public var source: String?
        /// A prebuilt `.corpus.zip`, absolute or relative to CATALOG_DIR.
        public var bundle: String?
        public var access: Access
        public var tier: String?
        public var bundled: Bool?
        /// The embedder to build with: `hash-uni-bi-384-v1` (the default) or the id of one of `embedders`.
        public var embedder: String?
        /// Where the pack's full-text index is made: `bundle` (the default) or `install`.
        public var index: String?
        /// Another app's corpus format `source` is in (`corpuskit`, `knowledgepress`, `lumen`):
        /// imported as `corpusd build --from` does. Checked by `load` (`importFormat`).
        public var from: String?
        /// The channel this version is published on (absent: `stable`); several entries may share an
        /// id as `ChannelRules` allows (docs/publishing.md "Channels and rollouts").
        public var channel: String?
        /// `{"start": TIME, "duration": DURATION}`: offer this version to a growing share of clients.
        public var rollout: Rollout?

        /// The key of this entry's build in the tree's build cache: the id for a corpus's one
        /// stable, current entry (as before channels existed), else the id with channel and version.
        public var cacheKey: String {
            channel == nil && rollout == nil ? id : "\(id)@\(version)~\(channel ?? ChannelRules.defaultChannel)"
        }

        /// The format `from` names, nil for a folder of documents (or a prebuilt bundle).
        public var importFormat: ImportFormat? { from.flatMap(ImportFormat.named) }

        /// True when `source` must be a folder: documents, or the knowledge app's folder.
        public var sourceIsFolder: Bool { importFormat?.sourceIsFolder ?? true }
    }

    /// Reads and validates `<dir>/catalog.json`.
    public static func load(directory dir: String) throws -> CatalogSource {
        let path = "\(dir)/catalog.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PublisherError.sourceNotFound(path: path)
        }
        func bad(_ reason: String) -> PublisherError { .invalidCatalogSource(path: path, reason: reason) }
        let source: CatalogSource
        do {
            source = try JSONDecoder().decode(CatalogSource.self, from: data)
        } catch {
            throw bad(CanonicalJSON.reason(error, detail: false))
        }
        guard Identifier.isValid(source.id) else { throw bad("catalog id \(source.id.debugDescription) is not a valid id") }
        guard !source.corpora.isEmpty else { throw bad("it lists no corpora") }
        var models = Set<String>()
        for m in source.embedders ?? [] {
            guard EmbedderManifest.isValidID(m.id) else { throw bad("embedder id \(m.id.debugDescription) is not a valid id") }
            guard models.insert(m.id).inserted else { throw bad("embedder \(m.id) is listed twice") }
        }
        var seen = Set<String>()
        for e in source.corpora {
            guard Identifier.isValid(e.id) else { throw bad("corpus id \(e.id.debugDescription) is not a valid id") }
            guard seen.insert("\(e.id)@\(e.version)~\(e.channel ?? ChannelRules.defaultChannel)").inserted else { throw bad("corpus \(e.id) is listed twice") }
        }
        if let problem = ChannelRules.problem(source.corpora.map {
            ChannelRules.Listing(id: $0.id, channel: $0.channel, version: $0.version, rollout: $0.rollout)
        }) { throw bad(problem) }
        for e in source.corpora {
            if let name = e.embedder, name != HashingEmbedder.identifier, !models.contains(name) {
                throw bad("corpus \(e.id) names embedder \(name), which \"embedders\" does not list")
            }
            if e.embedder != nil, e.bundle != nil { throw bad("corpus \(e.id) is a prebuilt bundle; its embedder is the bundle's") }
            if let index = e.index, !["bundle", "install"].contains(index) {
                throw bad("corpus \(e.id) has index \(index.debugDescription); it is \"bundle\" or \"install\"")
            }
            guard (e.source == nil) != (e.bundle == nil) else { throw bad("corpus \(e.id) needs exactly one of \"source\" and \"bundle\"") }
            if let from = e.from {
                guard ImportFormat.named(from) != nil else {
                    throw bad("corpus \(e.id) has \"from\": \(from.debugDescription); it is one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard e.source != nil else { throw bad("corpus \(e.id) has \"from\", which imports a \"source\"; a prebuilt bundle is one already") }
            }
            if let tier = e.tier {
                guard e.access == .entitled else { throw bad("corpus \(e.id) has a tier but is not \"entitled\"") }
                guard Identifier.isValid(tier) else { throw bad("tier \(tier.debugDescription) of \(e.id) is not a valid id") }
            }
        }
        return source
    }

    /// Where a path `catalog.json` names is: an absolute path as it is, a relative one joined to the
    /// catalog folder (it may lead outside it, like `../docs`).
    public static func locate(_ path: String, in catalogDirectory: String) -> String {
        path.hasPrefix("/") ? path : "\(catalogDirectory)/\(path)"
    }

}
