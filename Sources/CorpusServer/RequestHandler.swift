import Foundation
import CorpusFormat

/// A request as the handler sees it: method, raw request-target, HTTP version and headers (names
/// lower-cased, values without surrounding whitespace).
struct HTTPRequest {
    let method: String
    let rawTarget: String
    let version: String
    let headers: [(name: String, value: String)]

    init(method: String, rawTarget: String, version: String = "HTTP/1.1", headers: [(name: String, value: String)]) {
        self.method = method
        self.rawTarget = rawTarget
        self.version = version
        self.headers = headers
    }

    /// The first field of this name; `RequestHeadRules` refuses a second one of the fields read so.
    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    func count(_ name: String) -> Int { headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) } }
    /// A list-valued field (If-Match, If-None-Match), its field lines joined as RFC 9110 §5.3 allows.
    func list(_ name: String) -> String? {
        let values = headers.filter { $0.name == name }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

enum ResponseBody {
    case none
    case bytes([UInt8])
    case file(OpenedFile, offset: Int64, length: Int64)

    var length: Int64 {
        switch self {
        case .none: return 0
        case let .bytes(b): return Int64(b.count)
        case let .file(_, _, length): return length
        }
    }
}

struct HTTPResponse {
    var status: Int
    var headers: [(String, String)] = []
    var body: ResponseBody = .none
    /// Close the connection after this response (framing errors: the rest of the stream is suspect).
    var close = false
    /// The entitlement gate refused this request (counted in metrics).
    var gatedRefusal = false

    static func text(_ status: Int, _ message: String, close: Bool = false) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
                     body: .bytes(Array((message + "\n").utf8)), close: close)
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
    }

    let tree: StaticTree
    let gate: Gatekeeper
    let metrics: ServerMetrics
    let inlineLimit: Int64
    let routes: Routes

    init(tree: StaticTree, gate: Gatekeeper, metrics: ServerMetrics, inlineLimit: Int = 0,
         routes: Routes = Routes(tree: true, metrics: MetricsAccess(place: .mainListener))) {
        self.tree = tree
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
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(file.fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            // The file shrank under us (being replaced in place): fail rather than send short.
            guard n > 0 else { return nil }
            done += n
        }
        return .bytes(bytes)
    }

    /// Checks made as soon as the headers are in, before any body is read: the syntax of the head
    /// (`RequestHeadRules`), the method, and the framing. RFC 9110 §8.6 / RFC 9112 §6.3: a GET or
    /// HEAD has no body; a body, a Transfer-Encoding or two Content-Lengths on one is how request
    /// smuggling starts, so the request is refused and the connection dropped. nil when the
    /// request may proceed.
    func early(_ req: HTTPRequest) -> HTTPResponse? {
        if let reason = RequestHeadRules.refusal(version: req.version, rawTarget: Array(req.rawTarget.utf8), fields: req.headers) {
            return .text(400, "400 " + reason, close: true)
        }
        let lengths = req.count("content-length")
        let hasBody = req.count("transfer-encoding") > 0 || lengths > 1
            || (lengths == 1 && req.header("content-length")?.trimmingCharacters(in: .whitespaces) != "0")
        guard req.method == "GET" || req.method == "HEAD" else {
            var r = HTTPResponse.text(405, "405 only GET and HEAD are allowed", close: hasBody)
            r.headers.append(("Allow", "GET, HEAD"))
            return r
        }
        if req.count("transfer-encoding") > 0 { return .text(400, "400 Transfer-Encoding is not accepted", close: true) }
        if lengths > 1 { return .text(400, "400 more than one Content-Length", close: true) }
        if hasBody { return .text(400, "400 requests to this server carry no body", close: true) }
        return nil
    }

    /// The answer to a complete request that `early` let through (`ServerCore` asks in that order).
    func respond(_ req: HTTPRequest) -> HTTPResponse {
        let target: RequestTarget
        do {
            target = try RequestTarget.parse(req.rawTarget)
        } catch {
            switch error {
            case let .badRequest(reason): return .text(400, "400 " + reason)
            case .hidden: return .text(404, "404 not found")
            }
        }
        switch target.segments {
        case ["healthz"]:
            return .text(200, "ok")
        case ["metrics"]:
            return scrape(req)
        case _ where !routes.tree:
            return .text(404, "404 not found")
        case ["_auth"]:
            return authorize(req, target)
        case []:
            return serveFile(["index.html"], req, gated: false)
        default:
            switch gate.decide(target.segments, authorization: req.header("authorization")) {
            case .open: return serveFile(target.segments, req, gated: false)
            case .granted: return serveFile(target.segments, req, gated: true)
            case .unlisted: return .text(404, "404 not found")
            case let .unauthenticated(e): return Self.unauthorized(e)
            case let .forbidden(reason): return Self.forbidden(reason)
            }
        }
    }

    /// `GET /metrics`, where and for whom `routes.metrics` allows it (404 elsewhere: not advertised).
    private func scrape(_ req: HTTPRequest) -> HTTPResponse {
        guard let access = routes.metrics else { return .text(404, "404 not found") }
        guard access.admits(authorization: req.header("authorization")) else {
            var r = HTTPResponse.text(401, "401 /metrics needs the scrape token: Authorization: Bearer TOKEN")
            r.headers.append(("WWW-Authenticate", "Bearer realm=\"metrics\""))
            return r
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")],
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
            return .text(400, "400 /_auth takes one path: more than one path parameter was given")
        }
        guard let original = req.header("x-original-uri") ?? target.queryValue("path") else {
            return .text(400, "400 /_auth needs an X-Original-URI header or a path parameter")
        }
        guard let path = try? RequestTarget.parse(original) else { return Self.forbidden("the original path is not one this host serves") }
        let decision = gate.decide(path.segments, authorization: req.header("authorization"))
        var r: HTTPResponse
        switch decision {
        case .open, .granted: r = HTTPResponse(status: 204)
        case .unlisted: r = Self.forbidden("no catalog lists this bundle")
        case let .unauthenticated(e): r = Self.unauthorized(e)
        case let .forbidden(reason): r = Self.forbidden(reason)
        }
        // nginx copies this into Cache-Control, so a shared cache never stores a gated bundle.
        if path.segments.first == "bundles" {
            r.headers.append(("X-Corpus-Cache-Control", FilePolicy.cacheControl(path.segments, gated: decision == .granted)))
        }
        return r
    }

    static func unauthorized(_ e: EntitlementTokenError) -> HTTPResponse {
        var r = HTTPResponse.text(401, "401 " + e.description)
        r.headers.append(("WWW-Authenticate", "Bearer realm=\"corpus\", error=\"invalid_token\""))
        r.gatedRefusal = true
        return r
    }

    static func forbidden(_ reason: String) -> HTTPResponse {
        var r = HTTPResponse.text(403, "403 " + reason)
        r.headers.append(("WWW-Authenticate", "Bearer realm=\"corpus\", error=\"insufficient_scope\""))
        r.gatedRefusal = true
        return r
    }

    private func serveFile(_ segments: [String], _ req: HTTPRequest, gated: Bool) -> HTTPResponse {
        guard let file = tree.open(segments) else { return .text(404, "404 not found") }
        let id = file.identity
        let etag = FilePolicy.etag(segments, id)
        let lastModified = HTTPDate.format(id.mtimeSeconds)
        var headers: [(String, String)] = [
            ("Content-Type", FilePolicy.contentType(segments[segments.count - 1])),
            ("Cache-Control", FilePolicy.cacheControl(segments, gated: gated)),
            ("ETag", etag), ("Last-Modified", lastModified), ("Accept-Ranges", "bytes"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if gated { headers.append(("Vary", "Authorization")) }

        switch ConditionalRequest.evaluate(ifMatch: req.list("if-match"), ifUnmodifiedSince: req.header("if-unmodified-since"),
                                           ifNoneMatch: req.list("if-none-match"), ifModifiedSince: req.header("if-modified-since"),
                                           etag: etag, lastModified: id.mtimeSeconds, now: Int64(Date().timeIntervalSince1970)) {
        case .proceed:
            break
        case .notModified:
            return HTTPResponse(status: 304, headers: headers.filter { $0.0 != "Content-Type" && $0.0 != "Accept-Ranges" })
        case let .preconditionFailed(reason):
            return .text(412, "412 " + reason)
        }
        var decision = RangeDecision.full
        if let range = req.header("range"), Self.ifRangeHolds(req.header("if-range"), etag: etag, mtime: id.mtimeSeconds) {
            decision = RangeDecision.parse(range, size: id.size)
        }
        let head = req.method == "HEAD"
        switch decision {
        case .full:
            guard let body = body(file, offset: 0, length: id.size, head: head) else { return .text(500, "500 the file changed while being read") }
            return HTTPResponse(status: 200, headers: headers, body: body)
        case let .partial(offset, length):
            headers.append(("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(id.size)"))
            guard let body = body(file, offset: offset, length: length, head: head) else { return .text(500, "500 the file changed while being read") }
            return HTTPResponse(status: 206, headers: headers, body: body)
        case .unsatisfiable:
            var r = HTTPResponse.text(416, "416 range not satisfiable")
            r.headers.append(("Content-Range", "bytes */\(id.size)"))
            return r
        }
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
