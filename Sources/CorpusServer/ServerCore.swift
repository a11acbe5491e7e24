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
        switch ctx.state {
        case .receivingHead:
            return headReceived(connection, ctx, method: method, version: version)
        case let .headAccepted(request):
            if let size = uploadSize, size.pointee > 0 {
                // A body that slipped past the framing checks: drop it, the answer is already decided.
                size.pointee = 0
                return .YES
            }
            return queue(handler.respond(request, useCache: !stopping.load(ordering: .relaxed)), for: request, connection, ctx)
        case .responding, .unsent:
            // The body of a request refused on its head: dropped, the connection closes after the answer.
            uploadSize?.pointee = 0
            return .YES
        }
    }

    /// The head is complete: the checks of its layout and of `RequestHandler.early`.
    private func headReceived(_ connection: OpaquePointer, _ ctx: RequestContext, method: UnsafePointer<CChar>?,
                              version: UnsafePointer<CChar>?) -> MHD_Result {
        if let watch = Callbacks.headWatch(connection) { headDeadline.headReceived(watch) }
        let head = RequestHeadReader.read(connection)
        let request = HTTPRequest(method: HTTPMethod(rawValue: method.map { String(cString: $0) } ?? ""), rawTarget: ctx.rawTarget,
                                  version: version.map { String(cString: $0) } ?? "", headers: head.headers)
        let layout = RequestHeadLayout(method: method.map { .init($0) } ?? .init(start: 0, length: 0), target: ctx.rawTargetSpan,
                                       version: version.map { .init($0) }, fields: head.spans,
                                       headSize: corpus_mhd_request_header_size(connection).nonZero)
        if let reason = layout.refusal() { return queue(.refusal(.badRequest, reason, close: true), for: request, connection, ctx) }
        if let refusal = handler.early(request) { return queue(refusal, for: request, connection, ctx) }
        ctx.state = .headAccepted(request)
        return .YES
    }

    private func queue(_ response: HTTPResponse, for request: HTTPRequest, _ connection: OpaquePointer, _ ctx: RequestContext) -> MHD_Result {
        let answer = RequestState.Answer(method: request.method, status: response.status,
                                         bodyLength: request.method == .head ? 0 : response.body.length, gatedRefusal: response.gatedRefusal)
        let prepared: PreparedResponse
        if case let .prepared(p) = response.body {
            prepared = p
        } else if let p = PreparedResponse(response, close: response.close || stopping.load(ordering: .relaxed)) {
            prepared = p
        } else {
            ctx.state = .unsent(answer)
            return .NO
        }
        // libmicrohttpd sends the response and reports it finished only after this call returns,
        // on this thread, so counting it once queued cannot race the completion callback. It holds
        // a reference of its own to the response until then; `prepared` may go at once.
        let result = MHD_queue_response(connection, UInt32(prepared.status.code), prepared.handle)
        if result == .YES {
            metrics.responseQueued()
            ctx.state = .responding(answer)
        } else {
            ctx.state = .unsent(answer)
        }
        return result
    }

    /// `connection` nil when libmicrohttpd did not say; it gives the access log the client address.
    func finish(_ ctx: RequestContext, connection: OpaquePointer?, completed: Bool) {
        let outcome = ctx.state.outcome(completed: completed)
        switch outcome {
        case let .completed(a):
            metrics.requestCompleted(status: a.status, bytes: a.bodyLength, gatedRefusal: a.gatedRefusal, hadResponse: true)
        case let .aborted(a, queued):
            metrics.requestCompleted(status: a.status, bytes: 0, gatedRefusal: a.gatedRefusal, hadResponse: queued)
        case .unanswered:
            break
        }
        guard let accessLog else { return }
        let raw = ctx.rawTarget
        let path = raw.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(raw[..<$0]) } ?? raw
        // The address is looked up only here, for the log: most servers log nothing.
        accessLog(AccessLogEntry(client: connection.map(Callbacks.clientAddress) ?? "-", method: AccessLogEntry.sanitize(outcome.method?.rawValue ?? "-", limit: 16),
                                 path: AccessLogEntry.sanitize(path), status: outcome.status?.code ?? 0, bytes: outcome.bytesSent,
                                 seconds: Self.seconds(ContinuousClock.now - ctx.start),
                                 completed: { if case .completed = outcome { true } else { false } }()))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Per-request context, created in the URI log callback (the only place libmicrohttpd shows the
/// raw request-target) and released in the request-completed callback, which libmicrohttpd always
/// calls once the URI callback has run. Touched only by the thread serving its connection.
final class RequestContext {
    let rawTarget: String
    /// Where libmicrohttpd held the raw target, for `RequestHeadLayout` (never dereferenced later).
    let rawTargetSpan: RequestHeadLayout.Span?
    let start = ContinuousClock.now
    var state = RequestState.receivingHead

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
