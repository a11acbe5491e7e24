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
///
/// Models are loaded and checked by `ModelFolder`, as `corpusd build --model` loads them, so both
/// name the same digest; the written artifact is verified before it is moved into the tree.
struct PublishEmbedders {
    typealias Model = ModelFolder.Model

    let fallback: any Embedder
    private(set) var models: [String: Model] = [:]
    /// Model ids whose files are absent, with the reason, for the fallback notice.
    private(set) var missing: [String: String] = [:]

    /// Loads every model some corpus of `source` names (once each).
    init(source: CatalogSource, catalogDirectory: String, fallback: any Embedder) throws {
        self.fallback = fallback
        let wanted = Set(source.corpora.compactMap(\.embedder)).subtracting([fallback.id])
        for m in source.embedders ?? [] where wanted.contains(m.id) {
            let folder = CatalogSource.locate(m.source, in: catalogDirectory)
            if let absent = ModelFolder.absentFile(in: folder) {
                missing[m.id] = "\(folder) has no \(absent) (run scripts/fetch-model.sh to fetch the weights)"
                continue
            }
            guard ModelFolder.known.contains(m.id) else {
                throw PublisherError.invalidCatalogSource(path: "\(catalogDirectory)/catalog.json",
                                                          reason: "embedder \(m.id) is not one this build can run (it knows \(ModelFolder.known.joined(separator: ", ")))")
            }
            models[m.id] = try ModelFolder.load(id: m.id, folder: folder,
                                                prompts: ModelFolder.DeclaredPrompts(query: m.queryPrompt, passage: m.passagePrompt))
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

    /// A model artifact for the catalog: found in `embedders/` (`staged` nil), or written to staging.
    struct StagedArtifact {
        var entry: CatalogEmbedder
        var staged: String?
    }

    /// Finds the signed artifact of a model in `embedders/`, or writes one to `staging`.
    ///
    /// An artifact already in the tree is reused when it carries the same digest, is signed by
    /// this key and still hashes to its name. A new one is verified completely after writing (it
    /// must carry the model digest checked when the model was loaded) before the caller moves it
    /// to `embedders/<sha256>.embedder.zip`.
    static func stageArtifact(_ model: Model, key: SecretKey, tree: String, staging: String) throws -> StagedArtifact {
        let dir = "\(tree)/embedders"
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() where name.hasSuffix(".embedder.zip") {
            let rel = "embedders/\(name)"
            guard let reader = try? EmbedderArtifactReader(path: "\(tree)/\(rel)"),
                  let verified = try? reader.manifest(trustedKeys: [key.publicKey]), verified.digest == model.digest,
                  let ref = try? BundleRef(hashing: "\(tree)/\(rel)", path: { TreeLayout.embedderPath(sha256: $0.hex) }),
                  ref.path == rel else { continue }
            return StagedArtifact(entry: CatalogEmbedder(id: verified.manifest.id, dimension: verified.manifest.dimension,
                                                         digest: model.digest, artifact: ref), staged: nil)
        }
        let staged = "\(staging)/\(model.embedder.id).embedder.zip"
        try EmbedderArtifactWriter.write(modelDirectory: model.folder, id: model.embedder.id,
                                         dimension: model.embedder.dimension, encoder: model.embedder.settings, key: key, to: staged)
        // The writer hashes the files, then reads them again into the zip: verifying the result
        // catches a file swapped in between, so the artifact holds exactly what was checked.
        let verified = try? EmbedderArtifactReader(path: staged).verifyAll(trustedKeys: [key.publicKey])
        guard verified?.digest == model.digest else {
            throw PublisherError.invalidCatalogSource(path: model.folder, reason: "the model files changed while publishing")
        }
        let ref = try BundleRef(hashing: staged) { TreeLayout.embedderPath(sha256: $0.hex) }
        return StagedArtifact(entry: CatalogEmbedder(id: model.embedder.id, dimension: model.embedder.dimension, digest: model.digest,
                                                     artifact: ref),
                              staged: staged)
    }
}
