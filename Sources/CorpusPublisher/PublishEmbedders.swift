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
/// Model files are published (in the artifact), so they follow the documents' rule: a link among
/// them must stay inside the model folder (`SourceFolder`), and the bytes the artifact writer
/// hashed (it follows paths) must be the bytes found there without following any link; the written
/// artifact is verified before it is moved into the tree.
struct PublishEmbedders {
    struct Model {
        var embedder: any Embedder
        var folder: String
        var digest: SHA256Digest
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
            let folder = CatalogSource.locate(m.source, in: catalogDirectory)
            if let absent = EmbedderArtifactLayout.payloadMembers.first(where: { !FileIO.exists("\(folder)/\($0)") }) {
                missing[m.id] = "\(folder) has no \(absent) (run scripts/fetch-model.sh to fetch the weights)"
                continue
            }
            let files = try Self.checkedFiles(folder)
            switch m.id {
            case MiniLMEmbedder.identifier:
                var model = try MiniLMEmbedder(modelDirectory: URL(fileURLWithPath: folder))
                let written = try EmbedderArtifactWriter.manifest(modelDirectory: folder, id: model.id, dimension: model.dimension)
                try Self.confirm(written.manifest, matches: files, folder: folder)
                let digest = written.digest
                model.modelDigest = digest
                models[m.id] = Model(embedder: model, folder: folder, digest: digest)
            default:
                throw PublisherError.invalidCatalogSource(path: "\(catalogDirectory)/catalog.json",
                                                          reason: "embedder \(m.id) is not one this build can run (it knows \(MiniLMEmbedder.identifier))")
            }
        }
    }

    /// The model files of `folder`, each a regular file there or a link to one inside it.
    static func checkedFiles(_ folder: String) throws -> (folder: SourceFolder, files: [String: SourceFile]) {
        let source = try SourceFolder(folder)
        var files: [String: SourceFile] = [:]
        for name in EmbedderArtifactLayout.payloadMembers {
            switch source.file(at: name) {
            case let .success(file): files[name] = file
            case let .failure(e) where e.reason == SourceFolder.leaving:
                throw PublisherError.linkLeavesFolder(path: "\(folder)/\(name)", folder: folder)
            case let .failure(e):
                throw PublisherError.invalidCatalogSource(path: "\(folder)/\(name)", reason: "\(e.reason); a model file must be a regular file")
            }
        }
        return (source, files)
    }

    /// Checks that what the artifact manifest hashed is what the folder holds, read without following links.
    static func confirm(_ manifest: EmbedderManifest, matches checked: (folder: SourceFolder, files: [String: SourceFile]), folder: String) throws {
        for (name, file) in checked.files {
            let sha = try? checked.folder.sha256(file)
            guard let sha, manifest.files[name]?.sha256 == sha else {
                throw PublisherError.invalidCatalogSource(path: folder, reason: "the model files changed while publishing (\(name))")
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
                                         dimension: model.embedder.dimension, key: key, to: staged)
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
