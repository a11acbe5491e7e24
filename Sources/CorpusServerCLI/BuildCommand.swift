import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd build SOURCE_DIR --id ID --version V [--title T] … --key KEY --out FILE.corpus.zip`
enum BuildCommand: ServerCommand {
    static let id = Option.value("--id", "ID", "corpus id (a-z 0-9 . _ -)")
    static let version = Option.value("--version", "V", "corpus version, e.g. 1 or 2026.11")
    static let title = Option.value("--title", "T", "title (default: the id)")
    static let description = Option.value("--description", "D", "one-line description")
    static let language = Option.value("--language", "L", "language code (default: en)")
    static let license = Option.value("--license", "L", "license name, e.g. CC-BY-4.0")
    static let key = Option.value("--key", "KEY", "minisign secret key to sign with")
    static let out = Option.value("--out", "FILE.corpus.zip", "the .corpus.zip to write")
    static let embedder = Option.value("--embedder", "ID", "hash-uni-bi-384-v1 (the default, model-free) or all-MiniLM-L6-v2 (needs --model)")
    static let model = Option.value("--model", "DIR", "the model folder of --embedder, e.g. models/all-MiniLM-L6-v2 (scripts/fetch-model.sh)")
    static let index = Option.value("--index", "WHERE", "bundle (the default: the pack holds its full-text index) or install (a smaller download; clients build the index)")
    static let spec = CommandSpec(["build"], "build a signed corpus bundle from a folder of .txt .md .html .epub files",
                                  positionals: .exactly("SOURCE_DIR"),
                                  options: [id, version, title, description, language, license, embedder, model, index, key, out],
                                  required: [id, version, key, out])

    static func run(_ cmd: ParsedCommand, _ console: Console) throws {
        let id = cmd.required(Self.id)
        try Identifier.validate(id, what: "corpus id")
        let version = try CorpusVersion.parse(cmd.required(Self.version), what: Self.version.name)
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        // The model is loaded and checked before anything is written: a wrong folder stops here.
        let embedder = try ModelFolder.embedder(id: cmd.value(Self.embedder), model: cmd.value(Self.model))
        var options = BuildOptions(source: cmd.positionals[0], id: id, version: version, title: cmd.value(Self.title) ?? id,
                                   description: cmd.value(Self.description) ?? "", language: cmd.value(Self.language) ?? "en",
                                   license: cmd.value(Self.license) ?? "")
        switch cmd.value(Self.index) {
        case nil, "bundle": break
        case "install": options.indexAtInstall = true
        case let other?: throw UsageError.invalidValue(option: Self.index.name, value: other, expected: "bundle or install")
        }
        let summary = try CorpusBuilder.build(options, key: key, output: cmd.required(Self.out), embedder: embedder) { step in
            if console.json {
                console.emitLine(BuildEventLine(step))
            } else if !console.quiet, case let .ingested(documents, skipped) = step {
                console.progress("ingested \(documents) document(s), skipped \(skipped) file(s)\n")
            }
        }
        let warnings = TextWarning.corpusFields(id: id, title: options.title, description: options.description,
                                                license: options.license, language: options.language) + summary.warnings
        if console.json {
            console.emit(Built(bundle: summary.output, id: id, version: version.description, documents: summary.documents,
                               passages: summary.passages, size: summary.bytes, contentDigest: summary.manifest.content.hex,
                               embedder: EmbedderEntry(summary.manifest.embedder),
                               skipped: summary.skipped.map(SkippedEntry.init), warnings: warnings.map(WarningEntry.init)))
        } else {
            for s in summary.skipped { console.err(PublisherReport.line(s)) }
            for w in warnings { console.err(PublisherReport.line(w)) }
            let e = summary.manifest.embedder
            let model = e.modelDigest.map { " (model \($0.prefix(12))…)" } ?? ""
            console.info("wrote \(summary.output): \(summary.documents) document(s), \(summary.passages) passage(s), \(summary.bytes) bytes, embedded with \(e.id)\(model), signed by key \(key.keyID)")
        }
    }

    /// `{"bundle", "id", "version", "documents", "passages", "size", "content_digest", "embedder", "skipped", "warnings"}`
    struct Built: Encodable {
        let bundle: String
        let id: String
        let version: String
        let documents: Int
        let passages: Int
        let size: Int64
        let contentDigest: String
        let embedder: EmbedderEntry
        let skipped: [SkippedEntry]
        let warnings: [WarningEntry]

        enum CodingKeys: String, CodingKey {
            case bundle, id, version, documents, passages, size, embedder, skipped, warnings
            case contentDigest = "content_digest"
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
}
