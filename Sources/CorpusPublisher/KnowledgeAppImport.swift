import Foundation
import CorpusFormat
import CorpusEngine

/// `--from knowledgepress`: the knowledge app's `Corpus/` folder (docs/import.md, "Knowledge
/// app"). `manifest.json` is read and checked against `embedder.json` before any pack is opened;
/// every passage of every pack keeps its id; books (from `core.pack`) or document keys become
/// documents, chapters sections, timestamps document metadata.
enum KnowledgeAppImport {
    static let jsonLimit = 16 << 20
    static let core = "core.pack"

    /// The embedder a file names: a string, or an object with the model's name and dimension.
    struct NamedEmbedder: Decodable {
        var model: String
        var dimension: Int?

        init(model: String, dimension: Int?) {
            self.model = model
            self.dimension = dimension
        }

        init(from decoder: Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                model = name
                return
            }
            let c = try decoder.container(keyedBy: AnyKey.self)
            model = try c.required(String.self, "id", "model", "model_id", "name")
            dimension = try c.first(Int.self, "dimension", "dim", "embedding_dimension")
        }
    }

    struct PackEntry: Decodable {
        var file: String
        var vectors: String?

        init(file: String) { self.file = file }

        init(from decoder: Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                file = name
                return
            }
            let c = try decoder.container(keyedBy: AnyKey.self)
            file = try c.required(String.self, "file", "path", "name")
            vectors = try c.first(String.self, "vectors")
        }
    }

    struct Manifest: Decodable {
        var embedder: NamedEmbedder?
        var packs: [PackEntry]?
        var title: String?
        var description: String?
        var language: String?
        var license: String?

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            embedder = try c.first(NamedEmbedder.self, "embedder", "embedding_model", "model")
            packs = try c.first([PackEntry].self, "packs")
            title = try c.first(String.self, "title", "name")
            description = try c.first(String.self, "description")
            language = try c.first(String.self, "language")
            license = try c.first(String.self, "license")
        }
    }

    static func load(path: String, scratch: String, embedder build: any Embedder) throws -> ImportedCorpus {
        let source = ImportSource(format: .knowledgepress, path: path)
        let folder = try SourceFolder(path)
        let manifest = try source.decode(Manifest.self, try read(folder, "manifest.json", source: source), name: "manifest.json")
        let embedder = try checkedEmbedder(manifest, folder: folder, source: source)
        let (entries, skippedPacks) = try packEntries(manifest, folder: folder, source: source)
        let books = try present(core, in: folder, source: source)
            ? try KnowledgeAppBooks(file: core, copy: try copy(core, folder: folder, scratch: scratch, source: source), source: source) : nil
        var packs: [KnowledgeAppPack] = []
        for e in entries {
            packs.append(try KnowledgeAppPack(file: e.file, copy: try copy(e.file, folder: folder, scratch: scratch, source: source), source: source))
        }
        var (corpus, rows) = try assemble(packs, books: books, source: source)
        corpus.title = manifest.title
        corpus.description = manifest.description
        corpus.language = manifest.language
        corpus.license = manifest.license
        if let skippedPacks { corpus.notes.insert(skippedPacks, at: 0) }
        let keep = embedder.dimension.map { SourceVectors.madeBy(model: embedder.model, dimension: $0, build) } ?? false
        let (vectors, note) = try self.vectors(entries, packs: packs, embedder: embedder, folder: folder, rows: rows, keep: keep, source: source)
        corpus.vectors = vectors
        if let note { corpus.notes.append(note) }
        return corpus
    }

    /// The embedder manifest.json names, which embedder.json (when there) must name too.
    static func checkedEmbedder(_ manifest: Manifest, folder: SourceFolder, source: ImportSource) throws -> NamedEmbedder {
        guard let named = manifest.embedder else { throw source.bad("manifest.json names no embedder (field embedder)") }
        guard try present("embedder.json", in: folder, source: source) else { return named }
        let file = try source.decode(NamedEmbedder.self, try read(folder, "embedder.json", source: source), name: "embedder.json")
        guard SourceVectors.modelName(file.model) == SourceVectors.modelName(named.model) else {
            throw source.bad("manifest.json names embedder \(named.model.debugDescription) and embedder.json \(file.model.debugDescription): which model made the vectors is unclear")
        }
        if let a = named.dimension, let b = file.dimension, a != b {
            throw source.bad("manifest.json says the embedder has \(a) dimensions and embedder.json \(b)")
        }
        guard let dimension = named.dimension ?? file.dimension, (1...4096).contains(dimension) else {
            throw source.bad("neither manifest.json nor embedder.json gives the embedder's dimension (1 to 4096)")
        }
        return NamedEmbedder(model: named.model, dimension: dimension)
    }

    /// The packs to read: the manifest's list, else every `.pack` file but `core.pack`, by name.
    /// A `.pack` entry the folder's listing skips (a link leaving the folder, a folder) is named,
    /// as a listed pack that is one is refused by name: in the refusal when no pack is left,
    /// otherwise in the note returned.
    static func packEntries(_ manifest: Manifest, folder: SourceFolder, source: ImportSource) throws -> (entries: [PackEntry], note: String?) {
        if let listed = manifest.packs {
            guard !listed.isEmpty else { throw source.bad("it holds no pack of passages (manifest.json lists none)") }
            for e in listed {
                for name in [e.file] + [e.vectors].compactMap({ $0 }) where name.isEmpty || name.contains("/") || name.hasPrefix(".") {
                    throw source.bad("manifest.json names \(name.debugDescription), which is not a file name in the folder")
                }
            }
            return (listed, nil)
        }
        func isPack(_ path: String) -> Bool { !path.contains("/") && path.hasSuffix(".pack") && path != core }
        let listing = try folder.list()
        let entries = listing.files.map(\.path).filter(isPack).map { PackEntry(file: $0) }
        let skipped = listing.skipped.filter { isPack($0.path) }.map { "skipped \($0.path): \($0.reason)" }.joined(separator: "; ")
        guard !entries.isEmpty else {
            throw source.bad("it holds no pack of passages (manifest.json lists none, and no .pack file but core.pack is there)" + (skipped.isEmpty ? "" : "; \(skipped)"))
        }
        return (entries, skipped.isEmpty ? nil : skipped)
    }

    /// True when the folder has file `name`, false when it has none; anything else there (a
    /// link leaving the folder, a folder) is refused.
    static func present(_ name: String, in folder: SourceFolder, source: ImportSource) throws -> Bool {
        switch folder.file(at: name) {
        case .success: return true
        case let .failure(e) where e.reason == "missing": return false
        case let .failure(e): throw source.bad("\(name): \(e.reason)")
        }
    }

    /// A file of the folder, read whole through the confined folder.
    static func read(_ folder: SourceFolder, _ name: String, source: ImportSource, limit: Int = jsonLimit) throws -> [UInt8] {
        do {
            return try folder.read(try folder.file(at: name).get(), limit: limit)
        } catch {
            throw error.reason == "missing" ? source.bad("\(name) is missing") : source.bad("\(name): \(error.reason)")
        }
    }

    /// Copies a pack into `scratch` through the confined folder and returns the copy's path.
    static func copy(_ name: String, folder: SourceFolder, scratch: String, source: ImportSource) throws -> String {
        let file: SourceFile
        let reader: FileHandleReader
        do {
            file = try folder.file(at: name).get()
            reader = try folder.open(file).reader
        } catch {
            throw error.reason == "missing" ? source.bad("\(name) is missing") : source.bad("\(name): \(error.reason)")
        }
        let destination = "\(scratch)/source-\(name)"
        let fd = SystemCall.retrying { open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw FormatError.io(operation: "create", path: destination, errno: errno) }
        defer { close(fd) }
        try reader.forEachChunk { try FileIO.writeAll(fd, $0, path: destination) }
        return destination
    }
}
