import Foundation
import CorpusFormat

/// A request as the handler sees it: method, raw request-target, HTTP version and headers (names
/// as received, values without surrounding whitespace).
struct HTTPRequest {
    let method: HTTPMethod
    let rawTarget: String
    let version: String
    let headers: [(name: HTTPHeaderName, value: String)]

    init(method: HTTPMethod, rawTarget: String, version: String = "HTTP/1.1", headers: [(name: HTTPHeaderName, value: String)]) {
        self.method = method
        self.rawTarget = rawTarget
        self.version = version
        self.headers = headers
    }

    /// The first field of this name; `RequestHeadRules` refuses a second one of the fields read so.
    func header(_ name: HTTPHeaderName) -> String? { headers.first { $0.name == name }?.value }
    func count(_ name: HTTPHeaderName) -> Int { headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) } }
    /// A list-valued field (If-Match, If-None-Match), its field lines joined as RFC 9110 §5.3 allows.
    func list(_ name: HTTPHeaderName) -> String? {
        let values = headers.filter { $0.name == name }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

enum ResponseBody {
    case none
    case bytes([UInt8])
    case file(OpenedFile, offset: Int64, length: Int64)
    /// A whole response built before (`SmallFileCache`): its status and header fields included.
    case prepared(PreparedResponse)

    var length: Int64 {
        switch self {
        case .none: return 0
        case let .bytes(b): return Int64(b.count)
        case let .file(_, _, length): return length
        case let .prepared(p): return p.bodyLength
        }
    }
}

struct HTTPResponse {
    var status: HTTPStatus
    var headers: [(name: HTTPHeaderName, value: String)] = []
    var body: ResponseBody = .none
    /// Close the connection after this response (framing errors: the rest of the stream is suspect).
    var close = false
    /// The entitlement gate refused this request (counted in metrics).
    var gatedRefusal = false

    /// A plain-text body of one line, not to be cached.
    static func text(_ status: HTTPStatus, _ line: String, close: Bool = false) -> HTTPResponse {
        HTTPResponse(status: status, headers: [(.contentType, "text/plain; charset=utf-8"), (.cacheControl, "no-store")],
                     body: .bytes(Array((line + "\n").utf8)), close: close)
    }

    /// A refusal: the status code, then why (`404 not found`).
    static func refusal(_ status: HTTPStatus, _ reason: String, close: Bool = false) -> HTTPResponse {
        text(status, "\(status.code) \(reason)", close: close)
    }
}

/// Turns one request into one response: framing checks, routing, path safety, the entitlement
/// gate, conditional requests and byte ranges. Everything but the socket; libmicrohttpd glue
/// lives in `HTTPServer`.
final class RequestHandler: Sendable {
    /// What a listener answers besides `/healthz`.
    struct Routes: Sendable {
        /// The published tree and `/_auth`.
        var tree: Bool
        /// `/metrics`, and who may read it; nil answers 404.
        var metrics: MetricsAccess?
        /// `/v1/search` (`corpusd serve --search`); nil answers 404.
        var search: SearchEndpoint?
        /// `/v1/documents` and `/v1/read` (`corpusd serve --search`); nil answers 404.
        var browse: BrowseEndpoint?
        /// `/v1/keys/<payload sha256>` (`corpusd serve --key-store`); nil answers 404.
        var keys: KeyEndpoint?
    }

    let served: ServedTree
    let gate: Gatekeeper
    let metrics: ServerMetrics
    let inlineLimit: Int64
    let routes: Routes
    let storageRedirect: StorageRedirect?

    init(served: ServedTree, gate: Gatekeeper, metrics: ServerMetrics, inlineLimit: Int = 0,
         routes: Routes = Routes(tree: true, metrics: MetricsAccess(place: .mainListener)), storageRedirect: StorageRedirect? = nil) {
        self.storageRedirect = storageRedirect
        self.served = served
        self.gate = gate
        self.metrics = metrics
        self.inlineLimit = Int64(max(0, inlineLimit))
        self.routes = routes
    }

    /// The body for bytes `offset ..< offset + length` of an open file: read now when small (see
    /// `ServerConfiguration.inlineFileLimit`), else the descriptor itself for sendfile.
    private func body(_ file: OpenedFile, offset: Int64, length: Int64, head: Bool) -> ResponseBody? {
        guard length <= inlineLimit, !head else { return .file(file, offset: offset, length: length) }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        // Short when the file shrank under us (being replaced in place): fail rather than send short.
        guard bytes.withUnsafeMutableBytes({ FileIO.read(file.fd, into: $0, at: offset) }) else { return nil }
        return .bytes(bytes)
    }

    /// The methods served; anything else is answered 405 with this list in `Allow`.
    static let methods: [HTTPMethod] = [.get, .head]

    /// Checks made as soon as the headers are in, before any body is read: the syntax of the head
    /// (`RequestHeadRules`), the method, and the framing. RFC 9110 §8.6 / RFC 9112 §6.3: a GET or
    /// HEAD has no body; a body, a Transfer-Encoding or two Content-Lengths on one is how request
    /// smuggling starts, so the request is refused and the connection dropped. nil when the
    /// request may proceed.
    func early(_ req: HTTPRequest) -> HTTPResponse? {
        if let reason = RequestHeadRules.refusal(version: req.version, rawTarget: req.rawTarget.utf8, fields: req.headers) {
            return .refusal(.badRequest, reason, close: true)
        }
        let lengths = req.count(.contentLength)
        let hasBody = req.count(.transferEncoding) > 0 || lengths > 1
            || (lengths == 1 && req.header(.contentLength)?.trimmingCharacters(in: .whitespaces) != "0")
        guard Self.methods.contains(req.method) else {
            var r = HTTPResponse.refusal(.methodNotAllowed, "only GET and HEAD are allowed", close: hasBody)
            r.headers.append((.allow, Self.methods.map(\.rawValue).joined(separator: ", ")))
            return r
        }
        if req.count(.transferEncoding) > 0 { return .refusal(.badRequest, "Transfer-Encoding is not accepted", close: true) }
        if lengths > 1 { return .refusal(.badRequest, "more than one Content-Length", close: true) }
        if hasBody { return .refusal(.badRequest, "requests to this server carry no body", close: true) }
        return nil
    }

    // Matched with `==`: array literals in `case` patterns would be built anew on every request.
    private static let healthz = ["healthz"], metricsPath = ["metrics"], auth = ["_auth"], search = ["v1", "search"], root: [String] = []
    private static let documents = ["v1", "documents"], read = ["v1", "read"]

    /// The answer to a complete request that `early` let through (`ServerCore` asks in that order).
    /// `useCache` false answers without `SmallFileCache` (a stopping server adds `Connection: close`,
    /// which a shared response cannot carry).
    func respond(_ req: HTTPRequest, useCache: Bool = true) -> HTTPResponse {
        let target: RequestTarget
        do {
            target = try RequestTarget.parse(req.rawTarget)
        } catch {
            switch error {
            case let .badRequest(reason): return .refusal(.badRequest, reason)
            case .hidden: return .refusal(.notFound, "not found")
            }
        }
        switch target.segments {
        case Self.healthz:
            return .text(.ok, "ok")
        case Self.metricsPath:
            return scrape(req)
        case _ where !routes.tree:
            return .refusal(.notFound, "not found")
        case Self.auth:
            return authorize(req, target)
        case Self.search where routes.search != nil:
            return routes.search!.respond(target, authorization: req.header(.authorization), gate: gate)
        case Self.documents where routes.browse != nil:
            return routes.browse!.respond(.documents, target, authorization: req.header(.authorization), gate: gate)
        case Self.read where routes.browse != nil:
            return routes.browse!.respond(.read, target, authorization: req.header(.authorization), gate: gate)
        case _ where routes.keys != nil && target.segments.count == 3 && target.segments[0] == "v1" && target.segments[1] == KeyRelease.route:
            return routes.keys!.respond(target, authorization: req.header(.authorization), gate: gate)
        case Self.root:
            return serveFile(["index.html"], req, gated: false, useCache: useCache)
        default:
            let decision = gate.decide(target.segments, authorization: req.header(.authorization))
            // Only what a catalog lists leaves for the object store: any other path is answered
            // from the tree, as the plain server answers it (404 unless PUBLIC_DIR holds it).
            if let storageRedirect, StorageRedirect.redirects(target.segments), decision == .open || decision == .granted,
               gate.lists(target.segments) {
                return storageRedirect.response(target.segments, granted: decision == .granted)
            }
            switch decision {
            case .open: return serveFile(target.segments, req, gated: false, useCache: useCache)
            case .granted: return serveFile(target.segments, req, gated: true, useCache: false)
            case .unlisted: return .refusal(.notFound, "not found")
            case let .unauthenticated(e): return Self.unauthorized(e)
            case let .forbidden(reason): return Self.forbidden(reason)
            }
        }
    }

    /// `GET /metrics`, where and for whom `routes.metrics` allows it (404 elsewhere: not advertised).
    private func scrape(_ req: HTTPRequest) -> HTTPResponse {
        guard let access = routes.metrics else { return .refusal(.notFound, "not found") }
        guard access.admits(authorization: req.header(.authorization)) else {
            var r = HTTPResponse.refusal(.unauthorized, "/metrics needs the scrape token: Authorization: Bearer TOKEN")
            r.headers.append((.wwwAuthenticate, "Bearer realm=\"metrics\""))
            return r
        }
        return HTTPResponse(status: .ok, headers: [(.contentType, "text/plain; version=0.0.4; charset=utf-8"), (.cacheControl, "no-store")],
                            body: .bytes(Array(metrics.render().utf8)))
    }

    /// `GET /_auth` for nginx `auth_request`: 204 when the original request may proceed, else 401
    /// or 403 by the same rules as a direct download. The original path comes from the
    /// `X-Original-URI` header (nginx: `proxy_set_header X-Original-URI $request_uri;`), raw and
    /// still encoded, so it is decoded exactly once, here, like any request-target; or from `?path=`
    /// (one only; the header wins over it).
    /// nginx accepts only 2xx, 401 and 403 from an auth subrequest, so every refusal is one of those.
    private func authorize(_ req: HTTPRequest, _ target: RequestTarget) -> HTTPResponse {
        // Two paths would be answered for the first while the asker may mean the other.
        guard target.query.filter({ $0.name == "path" }).count <= 1 else {
            return .refusal(.badRequest, "/_auth takes one path: more than one path parameter was given")
        }
        guard let original = req.header(.xOriginalURI) ?? target.queryValue("path") else {
            return .refusal(.badRequest, "/_auth needs an X-Original-URI header or a path parameter")
        }
        guard let path = try? RequestTarget.parse(original) else { return Self.forbidden("the original path is not one this host serves") }
        let decision = gate.decide(path.segments, authorization: req.header(.authorization))
        var r: HTTPResponse
        switch decision {
        case .open, .granted: r = HTTPResponse(status: .noContent)
        case .unlisted: r = Self.forbidden("no catalog lists this bundle")
        case let .unauthenticated(e): r = Self.unauthorized(e)
        case let .forbidden(reason): r = Self.forbidden(reason)
        }
        // nginx copies this into Cache-Control, so a shared cache never stores a gated bundle.
        if Gatekeeper.listedFolders.contains(path.segments.first ?? "") {
            r.headers.append((.xCorpusCacheControl, FilePolicy.cacheControl(path.segments, gated: decision == .granted)))
        }
        return r
    }

    static func unauthorized(_ e: EntitlementTokenError) -> HTTPResponse {
        var r = HTTPResponse.refusal(.unauthorized, e.description)
        r.headers.append((.wwwAuthenticate, "Bearer realm=\"corpus\", error=\"invalid_token\""))
        r.gatedRefusal = true
        return r
    }

    static func forbidden(_ reason: String) -> HTTPResponse {
        var r = HTTPResponse.refusal(.forbidden, reason)
        r.headers.append((.wwwAuthenticate, "Bearer realm=\"corpus\", error=\"insufficient_scope\""))
        r.gatedRefusal = true
        return r
    }

    /// Fields that make a GET of a file conditional or partial: such requests are answered in full
    /// each time, never from `SmallFileCache`.
    static let conditionalFields: [HTTPHeaderName] = [.range, .ifRange, .ifMatch, .ifNoneMatch, .ifModifiedSince, .ifUnmodifiedSince]

    private func serveFile(_ segments: [String], _ req: HTTPRequest, gated: Bool, useCache: Bool) -> HTTPResponse {
        // One opening of PUBLIC_DIR answers the whole request, cache included.
        let opening = served.current()
        let tree = opening.tree, cache = opening.cache
        // Gated responses differ by token and say `Vary: Authorization`; they are never shared.
        let cacheable = useCache && cache.isEnabled && !gated && req.method == .get
            && !req.headers.contains { Self.conditionalFields.contains($0.name) }
        let path = cacheable ? segments.joined(separator: "/") : ""
        if cacheable, let hit = cache.response(path: path, current: { tree.currentIdentity(segments) }) {
            metrics.fileCacheHit()
            return HTTPResponse(status: hit.status, body: .prepared(hit))
        }
        guard let file = tree.open(segments) else { return .refusal(.notFound, "not found") }
        let id = file.identity
        let etag = FilePolicy.etag(segments, id)
        let lastModified = HTTPDate.format(id.mtimeSeconds)
        var headers: [(name: HTTPHeaderName, value: String)] = [
            (.contentType, FilePolicy.contentType(segments[segments.count - 1])),
            (.cacheControl, FilePolicy.cacheControl(segments, gated: gated)),
            (.etag, etag), (.lastModified, lastModified), (.acceptRanges, "bytes"),
            (.xContentTypeOptions, "nosniff"),
        ]
        if gated { headers.append((.vary, HTTPHeaderName.authorization.spelling)) }

        switch ConditionalRequest.evaluate(ifMatch: req.list(.ifMatch), ifUnmodifiedSince: req.header(.ifUnmodifiedSince),
                                           ifNoneMatch: req.list(.ifNoneMatch), ifModifiedSince: req.header(.ifModifiedSince),
                                           etag: etag, lastModified: id.mtimeSeconds, now: Int64(Date().timeIntervalSince1970)) {
        case .proceed:
            break
        case .notModified:
            return HTTPResponse(status: .notModified, headers: headers.filter { $0.name != .contentType && $0.name != .acceptRanges })
        case let .preconditionFailed(reason):
            return .refusal(.preconditionFailed, reason)
        }
        var decision = RangeDecision.full
        if let range = req.header(.range), Self.ifRangeHolds(req.header(.ifRange), etag: etag, mtime: id.mtimeSeconds) {
            decision = RangeDecision.parse(range, size: id.size)
        }
        let head = req.method == .head
        switch decision {
        case .full:
            guard let body = body(file, offset: 0, length: id.size, head: head) else { return .refusal(.internalServerError, "the file changed while being read") }
            let response = HTTPResponse(status: .ok, headers: headers, body: body)
            return cacheable ? cached(response, path: path, segments: segments, file: file, in: opening) : response
        case let .partial(offset, length):
            headers.append((.contentRange, "bytes \(offset)-\(offset + length - 1)/\(id.size)"))
            guard let body = body(file, offset: offset, length: length, head: head) else { return .refusal(.internalServerError, "the file changed while being read") }
            return HTTPResponse(status: .partialContent, headers: headers, body: body)
        case .unsatisfiable:
            var r = HTTPResponse.refusal(.rangeNotSatisfiable, "range not satisfiable")
            r.headers.append((.contentRange, "bytes */\(id.size)"))
            return r
        }
    }

    /// `response` (a full 200 read into memory from `file`) built once and kept in the cache, when
    /// the file was the same after it was read as when it was opened; else `response` as it is.
    private func cached(_ response: HTTPResponse, path: String, segments: [String], file: OpenedFile, in opening: ServedTree.Opening) -> HTTPResponse {
        guard case let .bytes(bytes) = response.body, file.identityNow() == file.identity,
              let prepared = PreparedResponse(response, close: false) else { return response }
        opening.cache.insert(path: path, segments: segments, identity: file.identity, response: prepared, bytes: bytes.count,
                             current: { opening.tree.currentIdentity(segments) })
        return HTTPResponse(status: response.status, body: .prepared(prepared))
    }

    /// RFC 9110 §13.1.5: a range applies only if If-Range is absent or names the current
    /// representation: the same strong ETag, or exactly its Last-Modified date.
    static func ifRangeHolds(_ ifRange: String?, etag: String, mtime: Int64) -> Bool {
        guard let v = ifRange?.trimmingCharacters(in: .whitespaces) else { return true }
        if v.hasPrefix("W/") { return false }
        if v.hasPrefix("\"") { return v == etag }
        return HTTPDate.parse(v) == mtime
    }
}
