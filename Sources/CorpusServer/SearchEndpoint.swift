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
        let served = Self.servedCorpora(index.current())
        let searchable = backend.searchable()
        var chosen: [String] = []
        for id in asked.isEmpty ? served.keys.sorted() : Array(Set(asked)).sorted() {
            guard let bundle = served[id], searchable.contains(id) else {
                if asked.isEmpty { continue }
                return .refusal(.notFound, "no corpus \(id) is searchable here")
            }
            switch gate.decide(bundle, authorization: authorization) {
            case .open, .granted: chosen.append(id)
            // Unasked, a locked corpus is left out rather than refusing the whole search.
            case _ where asked.isEmpty: continue
            case .unlisted: return .refusal(.notFound, "no corpus \(id) is searchable here")
            case let .unauthenticated(e): return RequestHandler.unauthorized(e)
            case let .forbidden(reason): return RequestHandler.forbidden(reason)
            }
        }
        let body: [UInt8]
        do {
            body = try backend.search(SearchQuery(text: q, k: k, corpora: chosen))
        } catch {
            return .refusal(.internalServerError, "the search failed")
        }
        // Answers depend on the token (entitled corpora), so no shared cache may keep one.
        return HTTPResponse(status: .ok, headers: [(.contentType, "application/json"), (.cacheControl, "no-store"),
                                                   (.vary, HTTPHeaderName.authorization.spelling), (.xContentTypeOptions, "nosniff")],
                            body: .bytes(body))
    }

    /// Each corpus the tree's catalogs list, with one of its bundle paths (as segments): searching
    /// a corpus is allowed exactly when downloading its bundle is. An entitled bundle is preferred,
    /// so a corpus any catalog gates stays gated.
    static func servedCorpora(_ snapshot: CatalogIndex.Snapshot) -> [String: [String]] {
        var out: [String: (entitled: Bool, path: String)] = [:]
        for (path, owners) in snapshot.bundles {
            for o in owners {
                let entitled = o.access == .entitled
                if let held = out[o.corpus], held.entitled || (!entitled && held.path < path) { continue }
                out[o.corpus] = (entitled, path)
            }
        }
        return out.mapValues { $0.path.split(separator: "/").map(String.init) }
    }
}
