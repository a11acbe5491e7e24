internal import CMicroHTTPD
import Foundation
import Synchronization
import CorpusFormat

/// Serves a published tree over HTTP with libmicrohttpd: epoll worker threads, files sent from
/// their descriptors (sendfile), entitlement gating for bundles of entitled corpora.
///
/// The listen socket is created here and handed to libmicrohttpd (`.LISTEN_SOCKET`),
/// so port 0 works and `port` tells which one was bound. `stop` stops accepting
/// (`MHD_quiesce_daemon`), lets responses in flight finish within a grace period, then shuts
/// the daemon down (`MHD_stop_daemon`).
public final class HTTPServer {
    public let host: String
    public let port: UInt16
    public let metrics: ServerMetrics
    private let core: ServerCore
    private var daemon: OpaquePointer?
    private let listenFD: Int32

    public init(_ config: ServerConfiguration) throws(ServerError) {
        let tree = try StaticTree(path: config.root)
        let index = CatalogIndex(tree: tree, checkInterval: config.catalogCheckInterval)
        let verifier = config.entitlementKey.map { EntitlementVerifier(key: $0, audience: nil, leeway: config.tokenLeeway) }
        metrics = ServerMetrics()
        core = ServerCore(handler: RequestHandler(tree: tree, gate: Gatekeeper(verifier: verifier, index: index), metrics: metrics,
                                                 inlineLimit: config.inlineFileLimit),
                          metrics: metrics, accessLog: config.accessLog)
        host = config.host
        (listenFD, port) = try Self.listen(host: config.host, port: config.port)

        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(listenFD), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: max(1, config.connectionLimit), ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: max(1, config.perIPConnectionLimit), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: max(1, config.connectionTimeout), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: max(4096, config.connectionMemoryLimit), ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
            MHD_OptionItem(option: .URI_LOG_CALLBACK, value: unsafeBitCast(Callbacks.uriLog, to: Int.self), ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(Callbacks.completed, to: Int.self),
                           ptr_value: Unmanaged.passUnretained(core).toOpaque()),
            MHD_OptionItem(option: .NOTIFY_CONNECTION, value: unsafeBitCast(Callbacks.connection, to: Int.self),
                           ptr_value: Unmanaged.passUnretained(core).toOpaque()),
        ]
        if config.threads > 1 {
            options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: config.threads, ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        // ITC (an eventfd) is what lets MHD_quiesce_daemon wake the worker threads.
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue
        // `core` is owned by self and outlives the daemon (stopped in `stop`/deinit before release).
        guard let d = corpus_mhd_start(flags, Callbacks.access, Unmanaged.passUnretained(core).toOpaque(), options) else {
            close(listenFD)
            throw .cannotListen(address: "\(config.host):\(port)", reason: "libmicrohttpd refused to start (epoll or thread support missing?)")
        }
        daemon = d
    }

    /// Stops accepting connections, waits up to `grace` for responses in flight, then shuts down.
    /// Returns true when nothing was cut off.
    @discardableResult
    public func stop(grace: Duration = .seconds(30)) -> Bool {
        guard let d = daemon else { return true }
        daemon = nil
        core.stopping.store(true, ordering: .relaxed)
        // The returned descriptor is our own listen socket; it may be closed only after MHD_stop_daemon,
        // but shutting it down now makes the kernel refuse new connections instead of queueing
        // them in a backlog nobody will accept from.
        _ = MHD_quiesce_daemon(d)
        _ = shutdown(listenFD, Int32(SHUT_RDWR))
        let deadline = ContinuousClock.now + grace
        while metrics.responsesInFlight > 0 && ContinuousClock.now < deadline { usleep(10_000) }
        let drained = metrics.responsesInFlight == 0
        MHD_stop_daemon(d)
        close(listenFD)
        return drained
    }

    deinit { stop(grace: .zero) }

    private static func listen(host: String, port: UInt16) throws(ServerError) -> (Int32, UInt16) {
        let address = "\(host):\(port)"
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else { throw .invalidListenAddress(address) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(address: address, reason: String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0, Glibc.listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotListen(address: address, reason: reason)
        }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }
}

@available(*, unavailable) extension HTTPServer: Sendable {}

/// What the C callbacks reach through their closure pointer.
final class ServerCore: Sendable {
    let handler: RequestHandler
    let metrics: ServerMetrics
    let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    /// Set while stopping: responses then carry `Connection: close` so keep-alive clients move on.
    let stopping = Atomic<Bool>(false)

    init(handler: RequestHandler, metrics: ServerMetrics, accessLog: (@Sendable (AccessLogEntry) -> Void)?) {
        self.handler = handler
        self.metrics = metrics
        self.accessLog = accessLog
    }

    /// One call of the access handler. libmicrohttpd calls it once when the headers are in, then
    /// (for a request without body) once more when the request is complete. A response queued on
    /// the first call makes libmicrohttpd close the connection afterwards, so only refusals that
    /// should close it (framing errors, bodies) are answered there; everything else is answered
    /// on the second call and keeps the connection alive.
    func handle(_ connection: OpaquePointer, _ ctx: RequestContext, method: String, uploadSize: UnsafeMutablePointer<Int>?) -> MHD_Result {
        if ctx.headers == nil {
            ctx.method = method
            ctx.headers = HeaderCollector.collect(connection)
            let request = HTTPRequest(method: method, rawTarget: ctx.rawTarget, headers: ctx.headers!)
            if let refusal = handler.early(request) { return queue(refusal, connection, ctx) }
            return .YES
        }
        if let size = uploadSize, size.pointee > 0 {
            // A body that slipped past the framing checks: drop it, the answer is already decided.
            size.pointee = 0
            return .YES
        }
        if ctx.responded { return .YES }
        return queue(handler.respond(HTTPRequest(method: method, rawTarget: ctx.rawTarget, headers: ctx.headers!)), connection, ctx)
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
}

extension ServerCore {
    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Per-request state, created in the URI log callback (the only place libmicrohttpd shows the raw
/// request-target) and released in the request-completed callback, which libmicrohttpd always
/// calls once the URI callback has run. Touched only by the thread serving its connection.
final class RequestContext {
    let rawTarget: String
    let start = ContinuousClock.now
    var client = "-"
    var method = ""
    var status = 0
    var bodyLength: Int64 = 0
    var headers: [(name: String, value: String)]?
    var responded = false
    var queued = false
    var gatedRefusal = false

    init(rawTarget: String) { self.rawTarget = rawTarget }
}

@available(*, unavailable) extension RequestContext: Sendable {}

/// Gathers request headers through `MHD_get_connection_values`.
final class HeaderCollector {
    var items: [(name: String, value: String)] = []

    static func collect(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        let box = HeaderCollector()
        let iterator: MHD_KeyValueIterator = { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
            box.items.append((String(cString: key).lowercased(), value.map { String(cString: $0) } ?? ""))
            return .YES
        }
        withExtendedLifetime(box) {
            _ = MHD_get_connection_values(connection, .HEADER_KIND, iterator, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.items
    }
}

@available(*, unavailable) extension HeaderCollector: Sendable {}

/// The C entry points. Each turns its closure pointer back into the object it names.
enum Callbacks {
    static let uriLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { _, uri, connection in
        let ctx = RequestContext(rawTarget: uri.map { String(cString: $0) } ?? "")
        if let connection { ctx.client = clientAddress(connection) }
        return Unmanaged.passRetained(ctx).toOpaque()
    }

    static let access: MHD_AccessHandlerCallback = { cls, connection, _, method, _, _, uploadSize, conCls in
        guard let cls, let connection, let conCls, let raw = conCls.pointee else { return .NO }
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if ctx.responded {
            uploadSize?.pointee = 0
            return .YES
        }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.handle(connection, ctx, method: method.map { String(cString: $0) } ?? "", uploadSize: uploadSize)
    }

    static let completed: MHD_RequestCompletedCallback = { cls, _, conCls, toe in
        guard let cls, let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().finish(ctx, completed: toe == .REQUEST_TERMINATED_COMPLETED_OK)
    }

    static let connection: MHD_NotifyConnectionCallback = { cls, _, _, code in
        guard let cls else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        if code == .CONNECTION_NOTIFY_STARTED { core.metrics.connectionOpened() } else { core.metrics.connectionClosed() }
    }

    static func clientAddress(_ connection: OpaquePointer) -> String {
        guard let sa = corpus_mhd_client_address(connection), sa.pointee.sa_family == sa_family_t(AF_INET) else { return "-" }
        var buf = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        var sin = UnsafeRawPointer(sa).loadUnaligned(as: sockaddr_in.self)
        guard inet_ntop(AF_INET, &sin.sin_addr, &buf, socklen_t(buf.count)) != nil else { return "-" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
