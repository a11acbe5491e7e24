import CorpusFormat

/// What `GET /v1/documents` and `GET /v1/read` ask the engine, injected by whoever starts the
/// server (`corpusd serve --search` passes the engine over the same home it searches), so this
/// module browses without depending on the engine. Called on server threads: thread-safe, blocking.
public protocol BrowseBackend: Sendable {
    /// The ids of the corpora it can browse.
    func browsable() -> Set<String>
    /// The `corpus documents --json` object (docs/cli.md), UTF-8 JSON.
    func documents(corpus: String, from: String?) throws(BrowseRefusal) -> [UInt8]
    /// The `corpus read --json` object (docs/cli.md), UTF-8 JSON.
    func read(corpus: String, document: String, at: String?, from: String?) throws(BrowseRefusal) -> [UInt8]
}

/// Why a backend did not answer a browse.
public enum BrowseRefusal: Error, Equatable, Sendable {
    /// No such document or passage in the corpus (404), with the line to answer.
    case notFound(String)
    /// The request names what no pack holds (400).
    case badRequest(String)
    /// Anything else (500); what it was stays in the server.
    case failed
}

/// `GET /v1/documents?corpus=ID[&from=PATH]` and `GET /v1/read?corpus=ID&document=PATH[&at=PASSAGE |
/// &from=PASSAGE]`: one corpus each, gated as its bundle is (`CorpusAccess`, as search), the path
/// checked (`BrowseArgument`) before the backend matches it against the corpus's documents (never
/// the file system), and a page of bounded size answered (`InstalledCorpus` pages).
struct BrowseEndpoint: Sendable {
    let backend: any BrowseBackend
    let index: CatalogIndex

    enum Route { case documents, read }

    func respond(_ route: Route, _ target: RequestTarget, authorization: String?, gate: Gatekeeper) -> HTTPResponse {
        let params = target.query
        func one(_ name: String) -> (value: String?, repeated: Bool) {
            let values = params.filter { $0.name == name }.map(\.value)
            return (values.first, values.count > 1)
        }
        let usage = route == .documents ? "GET /v1/documents?corpus=ID" : "GET /v1/read?corpus=ID&document=PATH"
        let corpus = one("corpus")
        guard let id = corpus.value, !corpus.repeated, Identifier.isValid(id) else {
            return .refusal(.badRequest, "one corpus parameter naming a corpus id is needed (\(usage))")
        }
        let from = one("from"), at = one("at"), document = one("document")
        if from.repeated || at.repeated || document.repeated { return .refusal(.badRequest, "from, at and document are given at most once") }
        var path: String?
        switch route {
        case .documents:
            if let p = from.value, let reason = BrowseArgument.documentPathRefusal(p) { return .refusal(.badRequest, reason) }
        case .read:
            guard let p = document.value else { return .refusal(.badRequest, "one document parameter is needed (\(usage))") }
            if let reason = BrowseArgument.documentPathRefusal(p) { return .refusal(.badRequest, reason) }
            for passage in [at.value, from.value].compactMap({ $0 }) {
                if let reason = BrowseArgument.passageIDRefusal(passage) { return .refusal(.badRequest, reason) }
            }
            if at.value != nil && from.value != nil { return .refusal(.badRequest, "at and from are one or the other") }
            path = p
        }
        if let refusal = CorpusAccess.refusal(bundle: CorpusAccess.served(index.current())[id], available: backend.browsable().contains(id),
                                              authorization: authorization, gate: gate, missing: "no corpus \(id) is browsable here") {
            return refusal
        }
        do {
            switch route {
            case .documents: return .perCaller(json: try backend.documents(corpus: id, from: from.value))
            case .read: return .perCaller(json: try backend.read(corpus: id, document: path!, at: at.value, from: from.value))
            }
        } catch {
            switch error {
            case let .notFound(line): return .refusal(.notFound, line)
            case let .badRequest(line): return .refusal(.badRequest, line)
            case .failed: return .refusal(.internalServerError, "the read failed")
            }
        }
    }
}
