internal import CMicroHTTPD
import Foundation
import Synchronization
import CorpusFormat

/// What the C callbacks of one listener reach through their closure pointer: the request handler,
/// the counters, the access log and the request-head deadline.
final class ServerCore: Sendable {
    let handler: RequestHandler
    let metrics: ServerMetrics
    let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    let headDeadline: RequestHeadDeadline
    /// Set while stopping: responses then carry `Connection: close` so keep-alive clients move on.
    let stopping = Atomic<Bool>(false)

    init(handler: RequestHandler, metrics: ServerMetrics, accessLog: (@Sendable (AccessLogEntry) -> Void)?, headDeadline: RequestHeadDeadline) {
        self.handler = handler
        self.metrics = metrics
        self.accessLog = accessLog
        self.headDeadline = headDeadline
    }

    /// One call of the access handler. libmicrohttpd calls it once when the headers are in, then
    /// (for a request without body) once more when the request is complete. A response queued on
    /// the first call makes libmicrohttpd close the connection afterwards, so only refusals that
    /// should close it (malformed heads, framing errors, bodies) are answered there; everything
    /// else is answered on the second call and keeps the connection alive.
    func handle(_ connection: OpaquePointer, _ ctx: RequestContext, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                uploadSize: UnsafeMutablePointer<Int>?) -> MHD_Result {
        if ctx.request == nil {
            headDeadline.headReceived(connection)
            let head = RequestHeadReader.read(connection)
            let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "", rawTarget: ctx.rawTarget,
                                      version: version.map { String(cString: $0) } ?? "", headers: head.headers)
            ctx.method = request.method
            ctx.request = request
            let layout = RequestHeadLayout(method: method.map { .init($0) } ?? .init(start: 0, length: 0), target: ctx.rawTargetSpan, version: version.map { .init($0) },
                                           fields: head.spans, headSize: corpus_mhd_request_header_size(connection).nonZero)
            if let reason = layout.refusal() { return queue(.text(400, "400 " + reason, close: true), connection, ctx) }
            if let refusal = handler.early(request) { return queue(refusal, connection, ctx) }
            return .YES
        }
        if let size = uploadSize, size.pointee > 0 {
            // A body that slipped past the framing checks: drop it, the answer is already decided.
            size.pointee = 0
            return .YES
        }
        if ctx.responded { return .YES }
        return queue(handler.respond(ctx.request!), connection, ctx)
    }

    private func queue(_ response: HTTPResponse, _ connection: OpaquePointer, _ ctx: RequestContext) -> MHD_Result {
        let method = ctx.method
        ctx.responded = true
        ctx.status = response.status
        ctx.gatedRefusal = response.gatedRefusal
        ctx.bodyLength = method == "HEAD" ? 0 : response.body.length

        let mhd: OpaquePointer?
        switch response.body {
        case .none:
            mhd = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case let .bytes(bytes):
            mhd = bytes.withUnsafeBytes { MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY) }
        case let .file(file, offset, length):
            let fd = file.release()
            mhd = MHD_create_response_from_fd_at_offset64(UInt64(length), fd, UInt64(offset))
            if mhd == nil { close(fd) }
        }
        guard let mhd else { return .NO }
        defer { MHD_destroy_response(mhd) }
        for (name, value) in response.headers { _ = MHD_add_response_header(mhd, name, value) }
        if response.close || stopping.load(ordering: .relaxed) { _ = MHD_add_response_header(mhd, "Connection", "close") }
        metrics.responseQueued()
        ctx.queued = true
        let result = MHD_queue_response(connection, UInt32(response.status), mhd)
        if result != .YES {
            ctx.queued = false
            metrics.requestCompleted(status: 0, bytes: 0, gatedRefusal: false, hadResponse: true)
        }
        return result
    }

    func finish(_ ctx: RequestContext, completed: Bool) {
        let bytes = completed ? ctx.bodyLength : 0
        if ctx.responded {
            metrics.requestCompleted(status: ctx.status, bytes: bytes, gatedRefusal: ctx.gatedRefusal, hadResponse: ctx.queued)
        }
        guard let accessLog else { return }
        let raw = ctx.rawTarget
        let path = raw.firstIndex(of: "?").map { String(raw[..<$0]) } ?? raw
        accessLog(AccessLogEntry(client: ctx.client, method: AccessLogEntry.sanitize(ctx.method.isEmpty ? "-" : ctx.method, limit: 16),
                                 path: AccessLogEntry.sanitize(path), status: ctx.status, bytes: bytes,
                                 seconds: Self.seconds(ContinuousClock.now - ctx.start),
                                 completed: completed && ctx.responded))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Per-request state, created in the URI log callback (the only place libmicrohttpd shows the raw
/// request-target) and released in the request-completed callback, which libmicrohttpd always
/// calls once the URI callback has run. Touched only by the thread serving its connection.
final class RequestContext {
    let rawTarget: String
    /// Where libmicrohttpd held the raw target, for `RequestHeadLayout` (never dereferenced later).
    let rawTargetSpan: RequestHeadLayout.Span?
    let start = ContinuousClock.now
    var client = "-"
    var method = ""
    var status = 0
    var bodyLength: Int64 = 0
    /// Set when the head is complete (the first access-handler call).
    var request: HTTPRequest?
    var responded = false
    var queued = false
    var gatedRefusal = false

    init(rawTarget: String, rawTargetSpan: RequestHeadLayout.Span?) {
        self.rawTarget = rawTarget
        self.rawTargetSpan = rawTargetSpan
    }
}

@available(*, unavailable) extension RequestContext: Sendable {}

extension Int {
    /// nil for 0 (libmicrohttpd's "not known").
    var nonZero: Int? { self == 0 ? nil : self }
}

extension RequestHeadLayout.Span {
    /// The span of a C string: its address and `strlen`.
    init(_ text: UnsafePointer<CChar>) {
        self.init(start: UInt(bitPattern: text), length: strlen(text))
    }
}
