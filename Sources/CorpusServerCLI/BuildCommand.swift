import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd build SOURCE --id ID --version V [--title T] … [--from FORMAT] [--embedder ID --model DIR] --key KEY --out FILE.corpus.zip`
struct BuildCommand: ServerCommand {
    static let id = Option.text("--id", "ID", "corpus id (a-z 0-9 . _ -)").required()
    static let version = Option.text("--version", "V", "corpus version, e.g. 1 or 2026.11").required()
    static let title = Option.text("--title", "T", "title (default: the source's, else the id)")
    static let description = Option.text("--description", "D", "one-line description")
    static let language = Option.text("--language", "L", "language code (default: en)")
    static let license = Option.text("--license", "L", "license name, e.g. CC-BY-4.0")
    static let key = Option.path("--key", "KEY", "minisign secret key to sign with").required()
    static let out = Option.path("--out", "FILE.corpus.zip", "the .corpus.zip to write").required()
    static let from = Option.choice("--from", ImportFormat.self,
                                    "import another app's corpus: the reader app's .corpus.zip, the knowledge app's Corpus/ folder, the browser's export zip (docs/import.md)")
    static let embedder = Option.text("--embedder", "ID", "hash-uni-bi-384-v1 (the default, model-free) or all-MiniLM-L6-v2 (needs --model)")
    static let model = Option.path("--model", "DIR", "the model folder of --embedder, e.g. models/all-MiniLM-L6-v2 (scripts/fetch-model.sh)")
    static let index = Option.choice("--index", IndexPlace.self, "install (the default: the smaller download; clients build the full-text index) or bundle (the pack holds its index; no indexing at install)")
    static let spec = CommandSpec(["build"], "build a signed corpus bundle from a folder of .txt .md .html .epub files, or from another app's corpus (--from)",
                                  positionals: .exactly("SOURCE").completing(.files),
                                  options: [id, version, title, description, language, license, from, embedder, model, index, key, out])

    /// Where the full-text index is built: `--index bundle|install`.
    enum IndexPlace: String, CaseIterable {
        case bundle, install
    }

    let context: ServerContext

    func run() throws -> Int32 {
        let id = try cmd.required(Self.id)
        try Identifier.validate(id, what: "corpus id")
        let version = try CorpusVersion.parse(cmd.required(Self.version), what: Self.version.name)
        let format = cmd.choice(Self.from, as: ImportFormat.self)
        if format == nil { try Self.refuseForeign(cmd.positionals[0]) }
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        // The model is loaded and checked before anything is written: a wrong folder stops here.
        let embedder = try ModelFolder.embedder(id: cmd.value(Self.embedder), model: cmd.value(Self.model))
        let index = cmd.choice(Self.index, as: IndexPlace.self)
        // An import's pack keeps its index (format 1) whatever the default; only asking for the other is a mistake.
        if index == .install, format != nil {
            throw UsageError.badValue(option: Self.index.name, value: "install",
                                      problem: "cannot be used with --from: an import keeps its pack's full-text index (leave --index out, or give bundle)")
        }
        let draw = { (step: BuildProgress) in
            if console.json {
                console.emitLine(BuildEventLine(step))
            } else if !console.quiet, case let .ingested(documents, skipped) = step {
                console.progress("ingested \(documents) document(s), skipped \(skipped) file(s)\n")
            }
        }
        let summary: BuildSummary
        if let format {
            let options = ImportOptions(format: format, source: cmd.positionals[0], id: id, version: version, title: cmd.value(Self.title),
                                        description: cmd.value(Self.description), language: cmd.value(Self.language), license: cmd.value(Self.license))
            summary = try CorpusBuilder.build(importing: options, key: key, output: cmd.required(Self.out), embedder: embedder, progress: draw)
        } else {
            var options = BuildOptions(source: cmd.positionals[0], id: id, version: version, title: cmd.value(Self.title) ?? id,
                                       description: cmd.value(Self.description) ?? "", language: cmd.value(Self.language) ?? "en",
                                       license: cmd.value(Self.license) ?? "")
            options.indexAtInstall = index != .bundle
            summary = try CorpusBuilder.build(options, key: key, output: cmd.required(Self.out), embedder: embedder, progress: draw)
        }
        Self.report(summary, key: key, console)
        return 0
    }

    /// Another app's corpus given without `--from`: said so, with the `--from` that reads it,
    /// rather than "not a folder".
    static func refuseForeign(_ source: String) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), !isFolder.boolValue,
              let format = BundleKind.detect(path: source).importFormat.flatMap(ImportFormat.named) else { return }
        throw ErrorReport(code: "usage", message: "\(source) is a \(format.sourceName), not a folder of documents",
                          hint: "add --from \(format.rawValue) to import it; docs/import.md says what it accepts", kind: .usage)
    }

    static func report(_ summary: BuildSummary, key: SecretKey, _ console: Console) {
        let m = summary.manifest
        let warnings = TextWarning.corpusFields(id: m.id, title: m.title, description: m.description, license: m.license,
                                                language: m.language) + summary.warnings
        if console.json {
            console.emit(Built(bundle: summary.output, id: m.id, version: m.version.description, documents: summary.documents,
                               passages: summary.passages, size: summary.bytes, contentDigest: m.content.hex,
                               embedder: EmbedderEntry(m.embedder), imported: summary.imported.map(ImportEntry.init),
                               skipped: summary.skipped.map(SkippedEntry.init), warnings: warnings.map(WarningEntry.init)))
            return
        }
        for s in summary.skipped { console.err(PublisherReport.line(s)) }
        for note in summary.imported?.notes ?? [] { console.err(TerminalText.sanitizeLine("note: \(note)")) }
        for w in warnings { console.err(PublisherReport.line(w)) }
        let model = m.embedder.modelDigest.map { " (model \($0.prefix(12))…)" } ?? ""
        console.info("wrote \(summary.output): \(summary.documents) document(s), \(summary.passages) passage(s), \(summary.bytes) bytes, embedded with \(m.embedder.id)\(model), signed by key \(key.keyID)")
    }

    /// `{"bundle", "id", "version", "documents", "passages", "size", "content_digest", "embedder", "import"?, "skipped", "warnings"}`
    struct Built: Encodable {
        let bundle: String
        let id: String
        let version: String
        let documents: Int
        let passages: Int
        let size: Int64
        let contentDigest: String
        let embedder: EmbedderEntry
        let imported: ImportEntry?
        let skipped: [SkippedEntry]
        let warnings: [WarningEntry]

        enum CodingKeys: String, CodingKey {
            case bundle, id, version, documents, passages, size, embedder, skipped, warnings
            case contentDigest = "content_digest"
            case imported = "import"
        }
    }

    /// `{"id", "dimension", "digest"?}`: the embedder the manifest names, as it names it.
    struct EmbedderEntry: Encodable {
        let id: String
        let dimension: Int
        let digest: String?

        init(_ info: EmbedderInfo) {
            id = info.id
            dimension = info.dimension
            digest = info.modelDigest?.hex
        }
    }

    /// `{"from", "vectors": "kept" | "embedded", "source_vectors"?, "bundled"?, "notes"}`: what an import kept.
    struct ImportEntry: Encodable {
        let from: String
        let vectors: String
        let sourceVectors: String?
        let bundled: Bool?
        let notes: [String]

        enum CodingKeys: String, CodingKey {
            case from, vectors, bundled, notes
            case sourceVectors = "source_vectors"
        }

        init(_ r: ImportReport) {
            from = r.format.rawValue
            switch r.vectors {
            case let .kept(model): (vectors, sourceVectors) = ("kept", model)
            case let .embedded(model): (vectors, sourceVectors) = ("embedded", model)
            }
            bundled = r.bundled
            notes = r.notes
        }
    }
}
