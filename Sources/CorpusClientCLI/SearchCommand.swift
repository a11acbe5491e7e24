import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus search QUERY [--corpus ID]... [-k N] [--lexical-only]`
struct SearchCommand: ClientCommand {
    static let corpus = Option.repeatable("--corpus", "ID", "search only this corpus (id or catalog/id)")
    static let k = Option.value("-k", "N", "number of results (default 10)")
    static let lexicalOnly = Option.flag("--lexical-only", "skip the vector channel")
    static let spec = CommandSpec(["search"], "search every installed corpus",
                                  positionals: .words("QUERY", count: 1...100), options: [corpus, k, lexicalOnly])

    let context: ClientContext

    func run() async throws -> Int32 {
        let query = cmd.positionals.joined(separator: " ")
        var options = SearchOptions()
        if let k = cmd.value(Self.k) {
            guard let n = Int(k), (1...1000).contains(n) else { throw UsageError.invalidValue(option: Self.k.name, value: k, expected: "a number from 1 to 1000") }
            options.k = n
        }
        options.corpora = cmd.values(Self.corpus)
        options.lexicalOnly = cmd.has(Self.lexicalOnly)
        let library = CorpusLibrary(home: home.root)
        // Each corpus is searched with the embedder its manifest names: the hashing embedder, or the
        // installed model (fetched by install and sync). A corpus whose model is not installed (an
        // imported bundle, say) is searched by words only, with a note; a model that is installed
        // but does not match its digest is refused by the engine.
        if !options.lexicalOnly {
            for c in client.installed() {
                guard let e = c.manifest?.embedder, let digest = e.modelDigest, EmbedderManifest.isValidID(e.id),
                      !FileIO.exists(home.embedderDirectory(id: e.id, digest: digest)) else { continue }
                let name = "\(c.record.remote)/\(c.record.id)"
                guard options.corpora.isEmpty || options.corpora.contains(c.record.id) || options.corpora.contains(name) else { continue }
                options.lexicalOnlyCorpora.insert(name)
                console.err("note: \(name) needs the embedder model \(e.id), which is not installed; searched by words only (corpus sync installs it)")
            }
        }
        let start = Date()
        let searched = try await library.searchReport(query, options: options)
        let hits = searched.hits
        let ms = Int(Date().timeIntervalSince(start) * 1000)
        let skipped = searched.skipped.map { s -> (name: String, report: ErrorReport) in
            let r = ClientErrors.report(s.error)
            return (s.name, ErrorReport(code: r.code, message: r.message, hint: RepairHint.repair(s.name), kind: r.kind))
        }
        if console.json {
            console.emit(Results(query: query, tookMs: ms, skipped: skipped.map { .init(corpus: $0.name, error: ErrorBody($0.report)) },
                                 hits: hits.map(Results.HitEntry.init)))
            return 0
        }
        for s in skipped { console.err("note: skipped \(s.name): \(s.report.message) (\(s.report.hint))") }
        if hits.isEmpty {
            console.info(client.installed().isEmpty ? "nothing installed to search; install a corpus first (corpus catalog)" : "no results for \(query.debugDescription)")
            return 0
        }
        for (i, h) in hits.enumerated() {
            let ranks = [h.lexicalRank.map { "bm25 #\($0)" }, h.vectorRank.map { "vector #\($0)" }].compactMap { $0 }.joined(separator: ", ")
            console.out("\(i + 1). \(TerminalText.sanitizeLine(h.documentTitle))\(h.section.isEmpty ? "" : " › \(TerminalText.sanitizeLine(h.section))")  [\(h.corpus) \(h.version): \(h.document); \(ranks)]")
            console.out("   \(TerminalText.sanitizeLine(h.snippet.isEmpty ? String(h.text.prefix(200)) : h.snippet))")
        }
        console.info("\(hits.count) result\(hits.count == 1 ? "" : "s") in \(ms) ms")
        return 0
    }

    /// `{"query", "took_ms", "skipped": [{"corpus", "error"}], "hits": [...]}` (docs/cli.md).
    struct Results: Encodable {
        struct Skipped: Encodable {
            let corpus: String
            let error: ErrorBody
        }

        struct HitEntry: Encodable {
            struct Ranks: Encodable {
                let lexical: Nullable<Int>
                let vector: Nullable<Int>
            }

            let corpus, catalog, version, document, title, section, text, snippet: String
            let score: Double
            let passage: String
            let ranks: Ranks

            init(_ h: Hit) {
                corpus = h.corpus
                catalog = h.remote
                version = h.version
                document = h.document
                title = h.documentTitle
                section = h.section
                text = h.text
                snippet = h.snippet
                score = h.score
                passage = h.passageID
                ranks = Ranks(lexical: Nullable(h.lexicalRank), vector: Nullable(h.vectorRank))
            }
        }

        let query: String
        let tookMs: Int
        let skipped: [Skipped]
        let hits: [HitEntry]

        enum CodingKeys: String, CodingKey {
            case query, skipped, hits
            case tookMs = "took_ms"
        }
    }
}
