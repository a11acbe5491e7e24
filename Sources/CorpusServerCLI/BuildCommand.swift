import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd build SOURCE_DIR --id ID --version V [--title T] --key KEY --out FILE.corpus.zip`
enum BuildCommand: ServerCommand {
    static let spec = CommandSpec(
        ["build"], "SOURCE_DIR --id ID --version V [--title T] --key KEY --out FILE.corpus.zip",
        "build a signed corpus bundle from a folder of .txt .md .html .epub files",
        positionals: 1...1,
        options: [.value("--id", "corpus id (a-z 0-9 . _ -)"), .value("--version", "corpus version, e.g. 1 or 2026.11"),
                  .value("--title", "title (default: the id)"), .value("--description", "one-line description"),
                  .value("--language", "language code (default: en)"), .value("--license", "license name, e.g. CC-BY-4.0"),
                  .value("--key", "minisign secret key to sign with"), .value("--out", "the .corpus.zip to write")],
        required: ["--id", "--version", "--key", "--out"])

    static func run(_ cmd: ParsedCommand, _ console: Console) throws {
        let id = cmd.value("--id")!
        try Identifier.validate(id, what: "corpus id")
        let version = try CorpusVersion.parse(cmd.value("--version")!, what: "--version")
        let key = try SecretKey(contentsOf: cmd.value("--key")!)
        let options = BuildOptions(source: cmd.positionals[0], id: id, version: version, title: cmd.value("--title") ?? id,
                                   description: cmd.value("--description") ?? "", language: cmd.value("--language") ?? "en",
                                   license: cmd.value("--license") ?? "")
        let summary = try PublisherReport.mapping {
            try CorpusBuilder.build(options, key: key, output: cmd.value("--out")!) { step in
                if console.json {
                    console.emitLine(PublisherReport.json(step))
                } else if !console.quiet, case let .ingested(documents, skipped) = step {
                    console.progress("ingested \(documents) document(s), skipped \(skipped) file(s)\n")
                }
            }
        }
        let warnings = TextWarning.corpusFields(id: id, title: options.title, description: options.description,
                                                license: options.license, language: options.language) + summary.warnings
        if console.json {
            console.emit(["bundle": summary.output, "id": id, "version": version.description, "documents": summary.documents,
                          "passages": summary.passages, "size": summary.bytes, "content_digest": summary.manifest.contentDigest,
                          "skipped": summary.skipped.map { ["path": $0.path, "reason": $0.reason] },
                          "warnings": warnings.map(PublisherReport.json)])
        } else {
            for s in summary.skipped { console.err(PublisherReport.line(s)) }
            for w in warnings { console.err(PublisherReport.line(w)) }
            console.info("wrote \(summary.output): \(summary.documents) document(s), \(summary.passages) passage(s), \(summary.bytes) bytes, signed by key \(key.keyID)")
        }
    }
}
