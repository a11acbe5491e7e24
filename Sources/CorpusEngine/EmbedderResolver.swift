import Foundation
import CorpusFormat
import Synchronization

/// Picks the query embedder for each corpus: the one its manifest names.
///
/// A corpus without a model digest uses the model-free default (the hashing embedder). A corpus
/// that names a model by id and digest uses the model installed in `HOME/embedders/<id>/<digest>/`
/// (docs/layout.md), checked against the digest, loaded once and then shared by every corpus and
/// search that names it. A missing or different model is a typed refusal, never a silent
/// fallback: vectors from one model searched with another rank noise.
public final class EmbedderResolver: Sendable {
    public let home: HomeLayout
    /// Used for corpora whose manifest names this embedder's id (and digest, if it has one).
    public let defaultEmbedder: any Embedder
    private let loaded = Mutex<[String: any Embedder]>([:])

    public init(home: String, defaultEmbedder: any Embedder = HashingEmbedder()) {
        self.home = HomeLayout(root: home)
        self.defaultEmbedder = defaultEmbedder
    }

    /// A key naming one model, equal for corpora that share a query embedding.
    public static func key(_ info: EmbedderInfo) -> String { "\(info.id)@\(info.modelDigest?.hex ?? "")#\(info.dimension)" }

    /// The embedder to embed queries for a corpus built with `info`.
    public func embedder(for info: EmbedderInfo, corpus: String) throws -> any Embedder {
        let d = defaultEmbedder
        if info.id == d.id, info.modelDigest == d.modelDigest, info.dimension == d.dimension { return d }
        guard let digest = info.modelDigest else {
            throw EngineError.embedderMismatch(corpus: corpus, corpusEmbedder: "\(info.id) (\(info.dimension) dimensions)",
                                               queryEmbedder: "\(d.id) (\(d.dimension) dimensions)")
        }
        // The digest was checked as the manifest decoded (a malformed one never gets here); the id
        // names a folder too.
        guard EmbedderManifest.isValidID(info.id) else {
            throw EngineError.embedderUnsupported(corpus: corpus, embedder: String(info.id.prefix(64)), reason: "its id or digest is malformed")
        }
        let key = Self.key(info)
        if let e = loaded.withLock({ $0[key] }) { return e }

        let folder = home.embedderDirectory(id: info.id, digest: digest)
        guard FileIO.exists(folder) else {
            let others = InstalledEmbedder.list(home: home).filter { $0.id == info.id }.map(\.digest)
            throw EngineError.embedderNotInstalled(corpus: corpus, embedder: info.id, digest: digest, installed: others)
        }
        let manifest: EmbedderManifest
        do {
            manifest = try InstalledEmbedder.check(directory: folder, id: info.id, digest: digest)
        } catch {
            throw EngineError.embedderModelMismatch(corpus: corpus, embedder: info.id, digest: digest, reason: "\(error)")
        }
        guard manifest.dimension == info.dimension else {
            throw EngineError.embedderModelMismatch(corpus: corpus, embedder: info.id, digest: digest,
                                                    reason: "the model has \(manifest.dimension) dimensions, the corpus \(info.dimension)")
        }
        let embedder = try Self.load(info: info, digest: digest, folder: folder, corpus: corpus, manifest: manifest)
        return loaded.withLock { cache in
            // Two searches may load the same model at once; keep one so memory is shared.
            if let first = cache[key] { return first }
            cache[key] = embedder
            return embedder
        }
    }

    /// Builds the embedder an id names from its installed model folder, with the signed settings
    /// of its artifact (`EmbedderManifest.encoderSettings`).
    static func load(info: EmbedderInfo, digest: SHA256Digest, folder: String, corpus: String, manifest: EmbedderManifest) throws -> any Embedder {
        do {
            var model = try BERTEmbedder(modelDirectory: URL(fileURLWithPath: folder), id: info.id, settings: manifest.encoderSettings)
            model.modelDigest = digest
            guard model.dimension == info.dimension else {
                throw EngineError.embedderModelMismatch(corpus: corpus, embedder: info.id, digest: digest,
                                                        reason: "the model has \(model.dimension) dimensions, the corpus \(info.dimension)")
            }
            return model
        } catch let e as EngineError {
            throw e
        } catch {
            throw EngineError.embedderModelMismatch(corpus: corpus, embedder: info.id, digest: digest, reason: "the model does not load: \(error)")
        }
    }
}
