import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CorpusHTTP

extension HTTPTransportFactory {
    /// Foundation's URLSession: the default on Apple platforms; on Linux FoundationNetworking
    /// (itself built on libcurl there), for a program that imports this module.
    public static var urlSession: HTTPTransportFactory { URLSessionTransport.factory }
}

/// The Foundation side of `HTTPTransport`: one `URLSession` (ephemeral: no cache, no cookies, no
/// credential store), one data task per hop, its delegate calls posted to a `SessionMailbox` that
/// the calling thread drains. So the body reaches `TransferState` on the caller's thread, as with
/// libcurl, and the same rules apply: the cap, stalls and the low-speed limit are checked between
/// deliveries and on a 0.2 s tick, and a broken rule cancels the task. Once a body has reached its
/// Content-Length the stall rules stop (only the completion is awaited, and its delay on a loaded
/// machine is not the server's slowness: the suite saw false "slower than" failures without this).
///
/// What URLSession does not do as libcurl does, and how it is met here:
/// - it follows redirects itself: the delegate declines each one, so the 3xx comes back as the
///   hop's response and `HTTPClient` applies its redirect policy as for libcurl;
/// - it has no connect timeout of its own: a connect that hangs is a stall (no byte for
///   `stallTimeout`), reported as such; the session's request timeout is only a backstop, set
///   past `connectTimeout + stallTimeout`;
/// - it asks for compressed bodies: `Accept-Encoding: identity` is sent, since ranges and sizes
///   are of the stored bytes;
/// - it cannot slow the server down: when more than `highWater` bytes wait in the mailbox the task
///   is suspended, and resumed below `lowWater`; on Apple platforms only (`suspendPauses`). On
///   Linux the mailbox bounds what can wait by the cap: past it, the delegate cancels the task;
/// - on Linux it takes no private CA bundle (`HTTPClientConfiguration.caBundle`): a client given
///   one is refused at the first request rather than silently trusting the system store
///   (docs/apple.md).
final class URLSessionTransport: HTTPTransport {
    static let factory = HTTPTransportFactory(name: "urlsession") { URLSessionTransport($0) }
    private let configuration: HTTPClientConfiguration
    private let events = SessionEvents()
    private let session: URLSession
    static let highWater = 8 << 20
    static let lowWater = 2 << 20
    /// How long a stopped transfer waits for its task to report the cancel.
    static let cancelGrace: Duration = .seconds(2)
    /// Whether `URLSessionTask.suspend()` pauses a transfer. Apple's does. FoundationNetworking's
    /// takes the transfer off its libcurl multi handle, and `resume()` sends the request again
    /// and delivers the body again from its first byte (a second head, every byte twice: seen
    /// here, and `slowConsumerGetsEachByteExactlyOnce`), so on Linux nothing is suspended and a
    /// consumer slower than the network lets the body wait in memory (docs/apple.md).
    #if canImport(FoundationNetworking)
    static let suspendPauses = false
    #else
    static let suspendPauses = true
    #endif

    init(_ configuration: HTTPClientConfiguration) {
        self.configuration = configuration
        let c = URLSessionConfiguration.ephemeral
        c.urlCache = nil
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.httpCookieStorage = nil
        c.httpShouldSetCookies = false
        c.urlCredentialStorage = nil
        c.timeoutIntervalForRequest = Self.backstop(configuration)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "corpus.http.urlsession"
        // A serial queue of its own underneath: an OperationQueue otherwise runs on Dispatch's
        // shared workers, which a 2-core machine has few of and blocked work elsewhere in the
        // process can take them all; then the delegate calls wait (seen: a loopback 302 not
        // delivered within 2 s). A serial queue always gets a thread.
        // `underlyingQueue` is unowned(unsafe): the delegate, which the session keeps until it is
        // invalidated and its last call made, owns the queue.
        queue.underlyingQueue = events.queue
        session = URLSession(configuration: c, delegate: events, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Seconds after which URLSession itself gives up; `TransferState` reports a stall first.
    private static func backstop(_ c: HTTPClientConfiguration) -> TimeInterval { (c.connectTimeout + c.stallTimeout) * 2 }

    func transfer(url: String, headers: [(name: String, value: String)], state: TransferState) throws -> HTTPHop {
        guard configuration.caBundle == nil else {
            throw TransportError.network(reason: "the URLSession transport cannot use a private CA bundle; use the libcurl transport")
        }
        guard let target = URL(string: url) else { throw TransportError.network(reason: "cannot parse the URL") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: Self.backstop(configuration))
        request.httpMethod = "GET"
        request.httpShouldHandleCookies = false
        request.setValue(configuration.userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        for header in headers { request.setValue(header.value, forHTTPHeaderField: header.name) }

        let mailbox = SessionMailbox(limit: state.cap)
        let task = session.dataTask(with: request)
        events.register(task.taskIdentifier, mailbox)
        defer { events.unregister(task.taskIdentifier) }
        task.resume()

        var received: Int64 = 0
        /// Foundation has read the whole hop (it reports a redirect only then).
        var hopRead = false
        var stopped = false
        var suspended = false
        var completion: Error??
        var stoppedAt: ContinuousClock.Instant?
        func stop() {
            guard !stopped else { return }
            stopped = true
            stoppedAt = .now
            if suspended { task.resume() }
            task.cancel()
        }
        while completion == nil {
            // FoundationNetworking sometimes loses a cancel and reads on (seen: 22.8 GB over 165 s
            // from an endless body). The outcome is decided once stopped, so wait for the task's
            // completion only a while; a task left running finds no mailbox and its bytes go nowhere.
            if let stoppedAt, ContinuousClock.now - stoppedAt > Self.cancelGrace { break }
            for event in mailbox.take(waiting: 0.2) {
                switch event {
                case let .head(status, fields):
                    state.receivedHead(status: status, headers: fields)
                case let .redirected(status, fields):
                    state.receivedHead(status: status, headers: fields)
                    hopRead = true
                case let .data(data):
                    received += Int64(data.count)
                    if !stopped, !data.withUnsafeBytes({ state.body($0) }) { stop() }
                case let .done(error):
                    completion = .some(error)
                }
            }
            if completion != nil { break }
            if !stopped, hopRead || Self.bodyIsComplete(state, received: received) {
                // Every byte is in and only the task's completion is to come: how long the
                // delegate queue takes to say so is this process's load, not the server's speed,
                // so the stall and low-speed rules no longer apply. Cancelling still does. A
                // declined redirect completes after two more trips through the delegate queue
                // and Foundation's work queue (taken as the cause of a fresh-clone run's "no data
                // for 0.5 s" after a 302 the server had sent at once).
                if state.cancellation?.isCancelled == true {
                    state.failure = TransportError.cancelled
                    stop()
                }
            } else if !stopped, !state.progress(downloaded: received) {
                stop()
            }
            guard Self.suspendPauses else { continue }
            let waiting = mailbox.waitingBytes
            if !stopped, !suspended, waiting > Self.highWater {
                task.suspend()
                suspended = true
            } else if suspended, waiting < Self.lowWater {
                task.resume()
                suspended = false
            }
        }
        let error = completion ?? nil
        return try state.finish(transportError: stopped ? nil : Self.transportError(error, url: target, state: state, received: received))
    }

    /// True once the head is in and the body, if it has one, has reached its Content-Length.
    private static func bodyIsComplete(_ state: TransferState, received: Int64) -> Bool {
        guard state.status != 0 else { return false }
        if state.status == 204 || state.status == 304 { return true }
        guard let length = HTTPResponseHead.contentLength(state.headers) else { return false }
        return received >= length
    }

    /// The task's own failure as a `TransportError`, or a body shorter than its Content-Length
    /// that the task reported as complete. Names the host only: the URL's query may be a
    /// presigned credential.
    private static func transportError(_ error: Error?, url: URL, state: TransferState, received: Int64) -> TransportError? {
        let host = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        guard let error else {
            if let length = HTTPResponseHead.contentLength(state.headers), received < length, state.status != 304 {
                return .network(reason: "the response from \(host) ended after \(received) of \(length) bytes")
            }
            return nil
        }
        guard let urlError = error as? URLError else { return .network(reason: "request to \(host) failed") }
        let what: String
        switch urlError.code {
        case .cannotConnectToHost: what = "could not connect to \(host)"
        case .cannotFindHost, .dnsLookupFailed: what = "could not resolve \(host)"
        case .networkConnectionLost: what = "the connection to \(host) was lost"
        case .timedOut: what = "the request to \(host) timed out"
        case .notConnectedToInternet: what = "no network connection"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            what = "TLS with \(host) failed (URL error \(urlError.code.rawValue))"
        case .badServerResponse: what = "\(host) sent a malformed response"
        case .cancelled: what = "the request to \(host) was cancelled"
        default: what = "the request to \(host) failed (URL error \(urlError.code.rawValue))"
        }
        return .network(reason: what)
    }
}

@available(*, unavailable) extension URLSessionTransport: Sendable {}

/// What the session's delegate saw of one task, in order.
enum SessionEvent {
    case head(status: Int, headers: [String: String])
    /// A redirect's head, which Foundation reports only once that response has been read whole
    /// (it delivers no `.head` for 301, 302, 303 and 307).
    case redirected(status: Int, headers: [String: String])
    case data(Data)
    case done(Error?)
}

/// The events of one task, posted from the delegate queue and taken by the thread running the
/// transfer.
///
/// Body bytes are counted as they are posted: once more than `limit` have come (the transfer's
/// cap), `postData` says so and takes no more, and the delegate cancels the task there and then.
/// The transfer's thread learns of the excess when it takes the chunk that crossed the cap. On
/// Linux nothing else stops a server streaming without end while that thread is busy (a task
/// cannot be paused there): the body piled up here, 2 GB in 1.5 s on loopback.
final class SessionMailbox: @unchecked Sendable {
    // @unchecked: `events`, `bytes` and `posted` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var events: [SessionEvent] = []
    private var bytes = 0
    private var posted: Int64 = 0
    private let limit: Int64

    init(limit: Int64) {
        self.limit = limit
    }

    func post(_ event: SessionEvent) {
        condition.withLock { append(event) }
    }

    /// Posts a body chunk; false for the chunk that takes the total past `limit` (it is still
    /// posted): the task must be cancelled then. Chunks after it are dropped.
    func postData(_ data: Data) -> Bool {
        condition.withLock {
            guard posted <= limit else { return true }
            posted += Int64(data.count)
            append(.data(data))
            return posted <= limit
        }
    }

    /// With `condition` locked.
    private func append(_ event: SessionEvent) {
        if case let .data(d) = event { bytes += d.count }
        events.append(event)
        condition.signal()
    }

    /// Every event posted so far, waiting up to `seconds` for the first.
    func take(waiting seconds: Double) -> [SessionEvent] {
        condition.withLock {
            if events.isEmpty { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
            let taken = events
            events = []
            bytes = 0
            return taken
        }
    }

    /// Body bytes posted and not yet taken.
    var waitingBytes: Int { condition.withLock { bytes } }
}

/// The session's delegate: routes each task's calls to its mailbox and declines every redirect.
final class SessionEvents: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `mailboxes` is only touched while `lock` is held.
    private let lock = NSLock()
    private var mailboxes: [Int: SessionMailbox] = [:]
    /// The serial queue the delegate's OperationQueue runs on (see `URLSessionTransport.init`).
    let queue = DispatchQueue(label: "corpus.http.urlsession.delegate")

    func register(_ task: Int, _ mailbox: SessionMailbox) { lock.withLock { mailboxes[task] = mailbox } }
    func unregister(_ task: Int) { _ = lock.withLock { mailboxes.removeValue(forKey: task) } }
    private func mailbox(_ task: URLSessionTask) -> SessionMailbox? { lock.withLock { mailboxes[task.taskIdentifier] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse {
            mailbox(dataTask)?.post(.head(status: http.statusCode, headers: Self.fields(http)))
        }
        completionHandler(.allow)
    }

    private static func fields(_ response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return fields
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if mailbox(dataTask)?.postData(data) == false { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        mailbox(task)?.post(.redirected(status: response.statusCode, headers: Self.fields(response)))
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        mailbox(task)?.post(.done(error))
    }
}
