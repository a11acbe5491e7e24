import Foundation
import CorpusFormat

/// What a publish needs of a built bundle's manifest, kept in the build cache: the fields a
/// catalog entry takes from it, the content digest the version rule checks, and the embedder
/// whose model artifact is published. Not the members' digests (a third of the manifest) nor the
/// rest: decoding whole manifests was most of reading the cache of 100,000 corpora. The keys
/// are the manifest's own, so a cache that holds whole manifests still reads.
struct CachedManifest: Codable, Equatable, Sendable {
    var id: String
    var version: CorpusVersion
    var title: String
    var description: String
    var language: String
    var license: String
    var embedder: EmbedderInfo
    var documents: Int
    var passages: Int
    var content: SHA256Digest

    enum CodingKeys: String, CodingKey {
        case id, version, title, description, language, license, embedder, documents, passages
        case content = "content_digest"
    }
}

extension CachedManifest {
    init(_ m: Manifest) {
        id = m.id
        version = m.version
        title = m.title
        description = m.description
        language = m.language
        license = m.license
        embedder = m.embedder
        documents = m.documents
        passages = m.passages
        content = m.content
    }
}
