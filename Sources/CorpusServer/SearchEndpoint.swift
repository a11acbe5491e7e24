import Foundation
import CorpusFormat

/// What `GET /v1/search` asks the engine: the query, how many hits, and the corpora (ids) the
/// caller may search and asked for.
public struct SearchQuery: Sendable, Equatable {
    public var text: String
    public var k: Int
    public var corpora: [String]
}

/// The ranking behind `GET /v1/search`, injected by whoever starts the server (`corpusd serve
/// --search` passes the retrieval engine), so this module serves searches without depending on
/// the engine or the client. Called on server threads: it must be thread-safe, and it blocks.
public protocol SearchBackend: Sendable {
    /// The ids of the corpora it can search.
    func searchable() -> Set<String>
    /// The response body: the `corpus search --json` object (docs/cli.md), UTF-8 JSON.
    func search(_ query: SearchQuery) throws -> [UInt8]
}

/// `GET /v1/search?q=TEXT&k=N&corpus=ID…`: bounds the request, decides which corpora the caller
/// may search by the same entitlement rules as their bundles (`Gatekeeper`), and hands the rest
/// to the backend. Stateless: every answer depends only on the request and the tree, so any
/// number of processes can stand behind one load balancer.
struct SearchEndpoint: Sendable {
    /// Longer than any question a person types; FTS5 uses at most 32 words of it anyway.
    static let maxQueryBytes = 1024
    static let maxK = 100
    static let maxCorpora = 32

    let backend: any SearchBackend
    let index: CatalogIndex

    func respond(_ target: RequestTarget, authorization: String?, gate: Gatekeeper) -> HTTPResponse {
        let params = target.query
        let qs = params.filter { $0.name == "q" }.map(\.value)
        guard qs.count == 1, let q = qs.first, !q.isEmpty, q.utf8.count <= Self.maxQueryBytes else {
            return .refusal(.badRequest, "search needs one q parameter of 1 to \(Self.maxQueryBytes) bytes (GET /v1/search?q=WORDS&k=N&corpus=ID)")
        }
        var k = 10
        let ks = params.filter { $0.name == "k" }.map(\.value)
        if !ks.isEmpty {
            guard ks.count == 1, let n = Int(ks[0]), (1...Self.maxK).contains(n) else {
                return .refusal(.badRequest, "k must be one number from 1 to \(Self.maxK)")
            }
            k = n
        }
        let asked = params.filter { $0.name == "corpus" }.map(\.value)
        guard asked.count <= Self.maxCorpora, asked.allSatisfy(Identifier.isValid) else {
            return .refusal(.badRequest, "corpus must name at most \(Self.maxCorpora) corpus ids")
        }
        let served = CorpusAccess.served(index.current())
        let searchable = backend.searchable()
        var chosen: [String] = []
        for id in asked.isEmpty ? served.keys.sorted() : Array(Set(asked)).sorted() {
            let missing = "no corpus \(id) is searchable here"
            guard let refusal = CorpusAccess.refusal(bundle: served[id], available: searchable.contains(id), authorization: authorization,
                                                     gate: gate, missing: missing) else {
                chosen.append(id)
                continue
            }
            // Unasked, a corpus not searchable or locked is left out rather than refusing the whole search.
            if asked.isEmpty { continue }
            return refusal
        }
        let body: [UInt8]
        do {
            body = try backend.search(SearchQuery(text: q, k: k, corpora: chosen))
        } catch {
            return .refusal(.internalServerError, "the search failed")
        }
        return .perCaller(json: body)
    }
}
