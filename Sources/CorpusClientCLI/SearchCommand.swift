import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus search QUERY [--corpus ID]... [-k N] [--lexical-only] [--remote NAME]`
struct SearchCommand: ClientCommand {
    static let corpus = Option.repeatable("--corpus", "ID", "search only this corpus (id or catalog/id)")
    static let k = Option.integer("-k", "N", in: 1...1000, "number of results (default 10)")
    static let lexicalOnly = Option.flag("--lexical-only", "skip the vector channel")
    static let remote = Option.text("--remote", "NAME", "search this remote's search server instead of the installed corpora")
    static let exact = Option.flag("--exact", "find QUERY as a literal phrase (installed corpora)")
    static let since = Option.text("--since", "TIME", "only passages timestamped at or after TIME (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")
    static let until = Option.text("--until", "TIME", "only passages timestamped at or before TIME")
    static let budget = Option.integer("--budget", "TOKENS", in: 64...1_000_000, counting: "tokens",
                                       "also give the passages that fit TOKENS WordPiece tokens, in rank order (\(ContextBudget.passages) fits a 4,096-token window)")
    static let extract = Option.flag("--extract", "also give the most relevant sentences of the top passages, with citations")
    static let spec = CommandSpec(["search"], "search every installed corpus (or a remote's search server)",
                                  positionals: .words("QUERY", count: 1...100),
                                  options: [corpus, k, lexicalOnly, remote, exact, since, until, budget, extract])

    let context: ClientContext

    func run() async throws -> Int32 {
        let query = cmd.positionals.joined(separator: " ")
        var options = SearchOptions()
        if let k = cmd.int(Self.k) { options.k = k }
        options.corpora = cmd.values(Self.corpus)
        options.lexicalOnly = cmd.has(Self.lexicalOnly)
        options.timeWindow = try timeWindow()
        let budget = try contextBudget()
        // One library for the whole run: each corpus it opens (schema and row-count checks, the
        // vector map) is opened once, whether the model check, the search or the phrase finder asks.
        let library = CorpusLibrary(home: home.root)
        let retriever = try chooseRetriever(query, options: options, library: library)
        // Each corpus is searched with the embedder its manifest names: the hashing embedder, or the
        // installed model (fetched by install and sync). A corpus whose model is not installed (an
        // imported bundle, say) is searched by words only, with a note; a model that is installed
        // but does not match its digest is refused by the engine.
        if retriever is LocalRetriever, !options.lexicalOnly {
            for name in library.corporaMissingTheirModel(selecting: options.corpora) {
                options.lexicalOnlyCorpora.insert(name)
                let model = client.installed().first { "\($0.record.remote)/\($0.record.id)" == name }?.manifest?.embedder.id ?? "its model"
                console.err("note: \(name) needs the embedder model \(model), which is not installed; searched by words only (corpus sync installs it)")
            }
        }
        let start = Date()
        let searched: SearchReport
        do {
            searched = cmd.has(Self.exact) ? try await library.findExact(query, options: options)
                : try await retriever.search(query, options: options)
        } catch SyncError.notFound where retriever is RemoteRetriever && cmd.value(Self.remote) == nil && options.corpora.isEmpty {
            // The fallback found a remote without a search server: say what it said before there was one.
            console.info("nothing installed to search; install a corpus first (corpus catalog)")
            return 0
        }
        let hits = searched.hits
        let ms = Int(Date().timeIntervalSince(start) * 1000)
        let skipped = searched.skipped.map { s -> (name: String, report: ErrorReport) in
            let r = ClientErrors.report(s.error)
            return (s.name, ErrorReport(code: r.code, message: r.message, hint: RepairHint.repair(s.name), kind: r.kind))
        }
        var response = SearchResponse(query: query, tookMs: ms,
                                      skipped: skipped.map { .init(corpus: $0.name, error: .init(code: $0.report.code, message: $0.report.message, hint: $0.report.hint)) },
                                      hits: hits.map { .init($0, origin: retriever.origin) })
        if let (tokens, fitter) = budget {
            response.context = SearchResponse.Context(budget: tokens, fitted: fitter.fit(hits, budget: tokens), overhead: fitter.perPassageOverhead)
        }
        if cmd.has(Self.extract) { response.answer = ExtractiveAnswer.extract(query, from: hits).map(SearchResponse.AnswerSentence.init) }
        if console.json {
            console.emit(response)
            return 0
        }
        for s in skipped { console.err("note: skipped \(s.name): \(s.report.message) (\(s.report.hint))") }
        if hits.isEmpty {
            console.info(library.installedNames().isEmpty && retriever is LocalRetriever
                         ? "nothing installed to search; install a corpus first (corpus catalog)" : "no results for \(query.debugDescription)")
            return 0
        }
        let from = retriever is LocalRetriever ? "" : " from \(retriever.origin)"
        for (i, h) in hits.enumerated() {
            let ranks = [h.lexicalRank.map { "bm25 #\($0)" }, h.vectorRank.map { "vector #\($0)" }].compactMap { $0 }.joined(separator: ", ")
            console.out("\(i + 1). \(TerminalText.sanitizeLine(h.documentTitle))\(h.section.isEmpty ? "" : " › \(TerminalText.sanitizeLine(h.section))")  [\(TerminalText.sanitizeLine(h.corpus)) \(TerminalText.sanitizeLine(h.version)): \(TerminalText.sanitizeLine(h.document)); \(ranks)\(from)]")
            console.out("   \(TerminalText.sanitizeLine(h.snippet.isEmpty ? String(h.text.prefix(200)) : h.snippet))")
        }
        console.info("\(hits.count) result\(hits.count == 1 ? "" : "s")\(from) in \(ms) ms")
        printExtras(response)
        return 0
    }

    /// Local search, unless `--remote NAME` names a remote, or nothing is installed and a remote is
    /// configured (the first by name): then that remote's search server.
    func chooseRetriever(_ query: String, options: SearchOptions, library: CorpusLibrary) throws -> any Retriever {
        let name = cmd.value(Self.remote)
        let localOnly = cmd.has(Self.exact) || options.timeWindow != nil
        if localOnly, let name {
            throw UsageError.invalidValue(option: Self.remote.name, value: name, expected: "given with --exact, --since or --until (they search installed corpora only)")
        }
        // The engine's view of what is installed (the layout's `current` links), not the install
        // records: decoding those (JSON, a folder walk for sizes) cost more than the search itself.
        if localOnly || (name == nil && !library.installedNames().isEmpty) { return LocalRetriever(library: library) }
        let remotes = (try? client.config().remotes) ?? []
        guard let remote = name.map({ n in remotes.first { $0.name == n } }) ?? remotes.min(by: { $0.name < $1.name }) else {
            if let name { throw SyncError.notFound(file: "remote \(name) (corpus remote add NAME URL --trust PUB adds one)") }
            return LocalRetriever(library: library)
        }
        guard query.utf8.count <= RemoteRetriever.maxQueryBytes else {
            throw UsageError.invalidValue(option: "QUERY", value: String(query.prefix(40)) + "…", expected: "at most \(RemoteRetriever.maxQueryBytes) bytes for a remote search")
        }
        guard options.k <= RemoteRetriever.maxK else {
            throw UsageError.invalidValue(option: Self.k.name, value: String(options.k), expected: "a whole number from 1 to \(RemoteRetriever.maxK) for a remote search")
        }
        if let refusal = context.tokenRefusal { throw refusal }
        return RemoteRetriever(remote: remote, token: client.token, configuration: client.httpConfiguration)
    }
}
