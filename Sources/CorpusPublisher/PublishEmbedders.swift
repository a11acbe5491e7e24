import Foundation
import CorpusFormat
import CorpusEngine
#if canImport(Glibc)
import Glibc
#endif

/// The embedders one publish builds with, and the model artifacts it publishes for them.
///
/// A corpus names its embedder in `catalog.json` (`embedder`, default `hash-uni-bi-384-v1`).
/// A model-based embedder is loaded from the folder `embedders[]` gives, and its digest (the hash of
/// the `embedder.json` its artifact will carry) goes into every manifest built with it. When the
/// model's files are absent (the weights are fetched, not committed), the corpus is built with the
/// model-free default instead and the publish reports why, so a checkout without the weights
/// still publishes and tests.
struct PublishEmbedders {
    struct Model {
        var embedder: any Embedder
        var folder: String
        var digest: String
    }

    let fallback: any Embedder
    private(set) var models: [String: Model] = [:]
    /// Model ids whose files are absent, with the reason, for the fallback notice.
    private(set) var missing: [String: String] = [:]

    /// Loads every model some corpus of `source` names (once each).
    init(source: CatalogSource, catalogDirectory: String, fallback: any Embedder) throws {
        self.fallback = fallback
        let wanted = Set(source.corpora.compactMap(\.embedder)).subtracting([fallback.id])
        for m in source.embedders ?? [] where wanted.contains(m.id) {
            let folder = "\(catalogDirectory)/\(m.source)"
            if let absent = EmbedderArtifactLayout.payloadMembers.first(where: { !FileIO.exists("\(folder)/\($0)") }) {
                missing[m.id] = "\(folder) has no \(absent) (run scripts/fetch-model.sh to fetch the weights)"
                continue
            }
            switch m.id {
            case MiniLMEmbedder.identifier:
                var model = try MiniLMEmbedder(modelDirectory: URL(fileURLWithPath: folder))
                let digest = try EmbedderArtifactWriter.manifest(modelDirectory: folder, id: model.id, dimension: model.dimension).digest
                model.modelDigest = digest
                models[m.id] = Model(embedder: model, folder: folder, digest: digest)
            default:
                throw PublisherError.invalidCatalogSource(path: "\(catalogDirectory)/catalog.json",
                                                          reason: "embedder \(m.id) is not one this build can run (it knows \(MiniLMEmbedder.identifier))")
            }
        }
    }

    /// The embedder a corpus builds with, and why it is the fallback when it is.
    func embedder(for entry: CatalogSource.Entry) -> (embedder: any Embedder, fallbackReason: String?) {
        guard let name = entry.embedder, name != fallback.id else { return (fallback, nil) }
        if let model = models[name] { return (model.embedder, nil) }
        return (fallback, missing[name] ?? "embedder \(name) is not available")
    }

    /// The input key of an embedder for the build cache: a model's digest changes it.
    static func cacheKey(_ e: any Embedder) -> String { e.modelDigest.map { "\(e.id)@\($0)" } ?? e.id }

    /// Writes (or reuses) the signed artifact of a model in `embedders/` and returns its catalog entry.
    ///
    /// An artifact already in the tree is reused when it carries the same digest, is signed by
    /// this key and still hashes to its name; otherwise a new one is written to `staging` and
    /// renamed to `embedders/<sha256>.embedder.zip`.
    static func publishArtifact(_ model: Model, key: SecretKey, tree: String, staging: String) throws -> (entry: CatalogEmbedder, reused: Bool) {
        let dir = "\(tree)/embedders"
        try FileIO.createDirectory(dir)
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() where name.hasSuffix(".embedder.zip") {
            let rel = "embedders/\(name)"
            guard let reader = try? EmbedderArtifactReader(path: "\(tree)/\(rel)"),
                  let verified = try? reader.manifest(trustedKeys: [key.publicKey]), verified.digest == model.digest,
                  let hash = try? SHA256.hash(fileAt: "\(tree)/\(rel)"),
                  rel == TreeLayout.embedderPath(sha256: Hex.encode(hash.digest)) else { continue }
            let ref = BundleRef(path: rel, sha256: Hex.encode(hash.digest), size: hash.size)
            return (CatalogEmbedder(id: verified.manifest.id, dimension: verified.manifest.dimension, digest: model.digest, artifact: ref), true)
        }
        let staged = "\(staging)/\(model.embedder.id).embedder.zip"
        let written = try EmbedderArtifactWriter.write(modelDirectory: model.folder, id: model.embedder.id,
                                                       dimension: model.embedder.dimension, key: key, to: staged)
        guard written.digest == model.digest else {
            throw PublisherError.invalidCatalogSource(path: model.folder, reason: "the model files changed while publishing")
        }
        let (digest, size) = try SHA256.hash(fileAt: staged)
        let sha = Hex.encode(digest)
        let rel = TreeLayout.embedderPath(sha256: sha)
        guard rename(staged, "\(tree)/\(rel)") == 0 else { throw FormatError.io(operation: "rename", path: "\(tree)/\(rel)", errno: errno) }
        FileIO.syncDirectory(dir)
        return (CatalogEmbedder(id: model.embedder.id, dimension: model.embedder.dimension, digest: model.digest,
                                artifact: BundleRef(path: rel, sha256: sha, size: size)), false)
    }
}
