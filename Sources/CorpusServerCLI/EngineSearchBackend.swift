import Foundation
import CorpusEngine
import CorpusServer

/// `corpusd serve --search HOME`: the retrieval engine over the corpora installed in HOME (a
/// `corpus` home folder, filled by `corpus install`/`sync` from this same tree, so every file was
/// verified by the client), answering `GET /v1/search` with exactly what `corpus search --json`
/// would print there: the same `CorpusLibrary`, options and response type.
final class EngineSearchBackend: SearchBackend {
    let library: CorpusLibrary

    init(home: String) {
        library = CorpusLibrary(home: home)
    }

    func searchable() -> Set<String> { library.installedIDs() }

    func search(_ query: SearchQuery) throws -> [UInt8] {
        // The server has asked for the ids it allows; none allowed is an empty answer, never "all".
        guard !query.corpora.isEmpty else {
            return Array(try SearchResponse(query: query.text, tookMs: 0, skipped: [], hits: []).encoded())
        }
        var options = SearchOptions(k: query.k, corpora: query.corpora)
        options.lexicalOnlyCorpora = Set(library.corporaMissingTheirModel(selecting: query.corpora))
        let start = Date()
        let report = try Self.blocking { [library, options] in try await library.searchReport(query.text, options: options) }
        let ms = Int(Date().timeIntervalSince(start) * 1000)
        let skipped = report.skipped.map {
            SearchResponse.Skipped(corpus: $0.name, error: .init(code: "unavailable", message: "this corpus could not be searched on the server",
                                                                 hint: "try again later"))
        }
        return Array(try SearchResponse(query: query.text, tookMs: ms, skipped: skipped, hits: report.hits.map { .init($0) }).encoded())
    }

    /// Runs the engine's async search from a server thread (libmicrohttpd's), which may block.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.set(await Result(awaiting: work))
            done.signal()
        }
        done.wait()
        return try box.get()
    }
}

/// The one result handed from the search task back to the server thread waiting for it.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: written once before the semaphore is signalled, read after it is waited on.
    private var result: Result<T, any Error>?
    func set(_ r: Result<T, any Error>) { result = r }
    func get() throws -> T { try result!.get() }
}

extension Result where Failure == any Error {
    init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
