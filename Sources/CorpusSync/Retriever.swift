import Foundation
import CorpusFormat
import CorpusEngine

/// The retrieval seam: one search, wherever the corpora are. `LocalRetriever` searches the home
/// folder with the engine; `RemoteRetriever` asks a catalog's search server (`corpusd serve
/// --search`), which runs the same engine over the same corpora, so an app can search before
/// (or instead of) installing and switch without changing its code.
public protocol Retriever: Sendable {
    /// Where its hits come from, as `corpus search` names it: `local` or `remote:NAME`.
    var origin: String { get }
    func search(_ query: String, options: SearchOptions) async throws -> SearchReport
}

/// The corpora installed in a home folder, searched by the engine in this process.
public struct LocalRetriever: Retriever {
    public let library: CorpusLibrary
    public var origin: String { "local" }

    public init(library: CorpusLibrary) { self.library = library }

    public func search(_ query: String, options: SearchOptions) async throws -> SearchReport {
        try await library.searchReport(query, options: options)
    }
}

/// A remote's search endpoint, `GET <remote URL>/v1/search?q=&k=&corpus=`. Its hits name the
/// remote as their catalog. Only `k` and `corpora` of the options travel: the server ranks with
/// its defaults, as local search does.
public struct RemoteRetriever: Retriever {
    public let remote: Remote
    public let token: String?
    public let configuration: HTTPClientConfiguration
    public var origin: String { "remote:\(remote.name)" }
    /// The server's bounds (docs/operations.md): a longer query or larger k is refused there.
    public static let maxQueryBytes = 1024
    public static let maxK = 100
    /// A search answer is a few hits of text; anything larger is not one.
    static let maxBodyBytes: Int64 = 16 << 20

    public init(remote: Remote, token: String?, configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.remote = remote
        self.token = token
        self.configuration = configuration
    }

    /// The request URL: the remote's base URL, `/v1/search`, and the query percent-encoded.
    public func url(_ query: String, options: SearchOptions) -> String {
        // `remote/id` selects within this remote; the server knows corpora by id.
        let corpora = options.corpora.map { ("corpus", $0.split(separator: "/").last.map(String.init) ?? $0) }
        return endpoint.url("search", [("q", query), ("k", String(options.k))] + corpora)
    }

    var endpoint: RemoteEndpoint { RemoteEndpoint(remote: remote, token: token, configuration: configuration) }

    public func search(_ query: String, options: SearchOptions) async throws -> SearchReport {
        let decoded = try await endpoint.get(url(query, options: options), as: SearchResponse.self, what: "search on \(remote.name)",
                                             missing: "the remote does not serve search, or not that corpus", maxBodyBytes: Self.maxBodyBytes)
        return SearchReport(hits: decoded.hits.map { $0.hit(remote: remote.name) }, skipped: [])
    }
}
