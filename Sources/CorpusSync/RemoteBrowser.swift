import Foundation
import CorpusFormat
import CorpusEngine

/// A remote's browse endpoints, `GET <remote URL>/v1/documents` and `/v1/read` (`corpusd serve
/// --search`), which run the engine's `LocalBrowser` over the corpora installed beside the tree:
/// the same pages an installed corpus gives. What a request names is checked here first, as the
/// local browser checks it (`BrowseArgument`), so a hostile path never leaves the client.
public struct RemoteBrowser: CorpusBrowser {
    public let remote: Remote
    public let token: String?
    public let configuration: HTTPClientConfiguration
    public var origin: String { "remote:\(remote.name)" }
    /// A page is at most 1 MiB of text (`InstalledCorpus.maxPageCharacters`) escaped as JSON.
    static let maxBodyBytes: Int64 = 16 << 20

    public init(remote: Remote, token: String?, configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.remote = remote
        self.token = token
        self.configuration = configuration
    }

    var endpoint: RemoteEndpoint { RemoteEndpoint(remote: remote, token: token, configuration: configuration) }

    public func documents(corpus: String, from: String?) async throws -> DocumentList {
        if let from, let reason = BrowseArgument.documentPathRefusal(from) { throw EngineError.invalidBrowseRequest(reason) }
        let url = endpoint.url("documents", [("corpus", Self.id(corpus))] + (from.map { [("from", $0)] } ?? []))
        return try await endpoint.get(url, as: DocumentList.self, what: "documents of \(corpus) on \(remote.name)",
                                      missing: "the remote does not serve browsing, or not that corpus or document", maxBodyBytes: Self.maxBodyBytes)
    }

    public func read(corpus: String, document: String, at: String?, from: String?) async throws -> DocumentText {
        if let reason = BrowseArgument.documentPathRefusal(document) { throw EngineError.invalidBrowseRequest(reason) }
        for id in [at, from].compactMap({ $0 }) {
            if let reason = BrowseArgument.passageIDRefusal(id) { throw EngineError.invalidBrowseRequest(reason) }
        }
        var query = [("corpus", Self.id(corpus)), ("document", document)]
        if let at { query.append(("at", at)) }
        if let from { query.append(("from", from)) }
        return try await endpoint.get(endpoint.url("read", query), as: DocumentText.self, what: "read of \(corpus) on \(remote.name)",
                                      missing: "the remote does not serve browsing, or not that corpus, document or passage",
                                      maxBodyBytes: Self.maxBodyBytes)
    }

    /// The server knows corpora by id: `catalog/id` selects within this remote.
    static func id(_ corpus: String) -> String {
        corpus.split(separator: "/").last.map(String.init) ?? corpus
    }
}
