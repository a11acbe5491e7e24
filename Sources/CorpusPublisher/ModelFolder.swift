import Foundation
import CorpusFormat
import CorpusEngine

/// A model embedder loaded from its folder to build with, for `corpusd build --embedder ID
/// --model DIR` and for the models a catalog's `embedders` name.
///
/// The folder must be the model its id names: every file the artifact carries present, each a
/// regular file in the folder or a link to one inside it (model files are published, so they
/// follow the documents' rule), a `config.json` describing that model's shape, and weights that
/// load as it. The digest is the one the model's artifact will carry (`EmbedderArtifactWriter`),
/// so a bundle built here names the same model digest as one `corpusd publish` builds.
public enum ModelFolder {
    /// A loaded model, its folder and its digest.
    public struct Model: Sendable {
        public var embedder: BERTEmbedder
        public var folder: String
        public var digest: SHA256Digest
    }

    /// Query and passage prompts a publisher declares for a model (catalog.json), nil where not declared.
    public struct DeclaredPrompts: Hashable, Sendable {
        public var query: String?
        public var passage: String?
        public init(query: String? = nil, passage: String? = nil) {
            self.query = query
            self.passage = passage
        }

        /// `settings` with the declared prompts where the folder has none.
        func apply(to settings: EncoderSettings, folder: String, embedder: String) throws -> EncoderSettings {
            var out = settings
            for (declared, path, name) in [(query, \EncoderSettings.queryPrompt, "query"), (passage, \EncoderSettings.passagePrompt, "passage")] {
                guard let declared else { continue }
                let own = settings[keyPath: path]
                guard own.isEmpty || own == declared else {
                    throw PublisherError.invalidModel(folder: folder, embedder: embedder,
                                                      reason: "its \(name) prompt \(own.debugDescription) is not the declared \(declared.debugDescription)")
                }
                out[keyPath: path] = declared
            }
            return out
        }
    }

    /// Embedder ids that have a model this build can run (`KnownEncoder`).
    public static let known = KnownEncoder.all.map(\.id)

    /// The embedder `corpusd build` builds with: the model-free default when `id` is nil or names
    /// it, else the model `id` names, loaded from `model`.
    /// - Throws: `PublisherError.unknownEmbedder`, `.modelOption` (a model given to the model-free
    ///   embedder, or none to a model one), `.invalidModel`, `.linkLeavesFolder`.
    public static func embedder(id: String?, model: String?) throws -> any Embedder {
        let fallback = HashingEmbedder()
        guard let id, id != fallback.id else {
            if let model {
                throw PublisherError.modelOption(reason: "--model \(model) was given, but \(fallback.id) (the default embedder) has no model; name the model's embedder with --embedder \(MiniLMEmbedder.identifier)")
            }
            return fallback
        }
        guard known.contains(id) else { throw PublisherError.unknownEmbedder(id: id, known: [fallback.id] + known) }
        guard let model else {
            throw PublisherError.modelOption(reason: "--embedder \(id) needs --model DIR, the folder holding its files (scripts/fetch-model.sh puts them in models/\(id))")
        }
        return try load(id: id, folder: model).embedder
    }

    /// Loads the model `id` names from `folder` and computes its digest. `prompts` are the ones
    /// the publisher declares (catalog.json) for a model whose folder has none; a folder that
    /// names other prompts than declared is refused, as which ones the apps use is unclear.
    public static func load(id: String, folder: String, prompts: DeclaredPrompts = DeclaredPrompts()) throws -> Model {
        guard known.contains(id) else { throw PublisherError.unknownEmbedder(id: id, known: [HashingEmbedder.identifier] + known) }
        func bad(_ reason: String) -> PublisherError { .invalidModel(folder: folder, embedder: id, reason: reason) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw bad("there is no such folder")
        }
        let files = try checkedFiles(folder, embedder: id)
        guard let config = try? files.folder.read(files.files[EmbedderArtifactLayout.config]!, limit: 1 << 20) else {
            throw bad("its config.json cannot be read (or is over 1 MiB)")
        }
        let url = URL(fileURLWithPath: folder)
        var settings: EncoderSettings
        let configuration: BERTConfiguration
        do {
            configuration = try BERTConfiguration(json: Data(config))
            settings = try SentenceTransformersSettings.read(folder: url, configuration: configuration)
        } catch {
            throw bad("\(error)")
        }
        if let mismatch = KnownEncoder.named(id)!.mismatch(configuration, settings) { throw bad(mismatch) }
        settings = try prompts.apply(to: settings, folder: folder, embedder: id)
        var embedder: BERTEmbedder
        do {
            embedder = try BERTEmbedder(modelDirectory: url, id: id, settings: settings)
        } catch {
            throw bad("its weights or vocabulary do not load as \(id): \(error)")
        }
        let written = try EmbedderArtifactWriter.manifest(modelDirectory: folder, id: embedder.id, dimension: embedder.dimension,
                                                          encoder: embedder.settings)
        try confirm(written.manifest, matches: files, folder: folder)
        embedder.modelDigest = written.digest
        return Model(embedder: embedder, folder: folder, digest: written.digest)
    }

    /// Any BERT-family model folder, for `corpusd embed`: loaded with the settings its
    /// sentence-transformers files give, and `prompts` where the folder names none, exactly as
    /// a publish would load it (but without a known id's shape check: the gate is for any model).
    public static func encoder(folder: String, prompts: DeclaredPrompts = DeclaredPrompts()) throws -> BERTEmbedder {
        let name = "a BERT sentence encoder"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw PublisherError.invalidModel(folder: folder, embedder: name, reason: "there is no such folder")
        }
        let url = URL(fileURLWithPath: folder)
        do {
            guard let config = FileManager.default.contents(atPath: url.appendingPathComponent("config.json").path) else {
                throw EncoderError.modelMissing(directory: folder, file: "config.json")
            }
            let configuration = try BERTConfiguration(json: config)
            let settings = try prompts.apply(to: SentenceTransformersSettings.read(folder: url, configuration: configuration), folder: folder, embedder: name)
            return try BERTEmbedder(modelDirectory: url, id: url.lastPathComponent, settings: settings)
        } catch let e as PublisherError {
            throw e
        } catch {
            throw PublisherError.invalidModel(folder: folder, embedder: name, reason: "\(error)")
        }
    }

    /// The first file a model's artifact carries that `folder` lacks, nil when it has them all.
    static func absentFile(in folder: String) -> String? {
        EmbedderArtifactLayout.payloadMembers.first { !FileIO.exists("\(folder)/\($0)") }
    }

    /// The model files of `folder`, each a regular file there or a link to one inside it.
    static func checkedFiles(_ folder: String, embedder: String) throws -> (folder: SourceFolder, files: [String: SourceFile]) {
        let source = try SourceFolder(folder)
        var files: [String: SourceFile] = [:]
        for name in EmbedderArtifactLayout.payloadMembers {
            switch source.file(at: name) {
            case let .success(file): files[name] = file
            case let .failure(e) where e.reason == SourceFolder.leaving:
                throw PublisherError.linkLeavesFolder(path: "\(folder)/\(name)", folder: folder)
            case let .failure(e):
                let reason = e.reason == "missing" ? "it has no \(name)" : "\(name): \(e.reason); a model file must be a regular file"
                throw PublisherError.invalidModel(folder: folder, embedder: embedder, reason: reason)
            }
        }
        return (source, files)
    }

    /// Checks that what the artifact manifest hashed is what the folder holds, read without following links.
    static func confirm(_ manifest: EmbedderManifest, matches checked: (folder: SourceFolder, files: [String: SourceFile]), folder: String) throws {
        for (name, file) in checked.files {
            let sha = try? checked.folder.sha256(file)
            guard let sha, manifest.files[name]?.sha256 == sha else {
                throw PublisherError.invalidModel(folder: folder, embedder: manifest.id, reason: "the model files changed while they were read (\(name))")
            }
        }
    }
}
