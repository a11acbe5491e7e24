import Foundation
internal import CCurl
internal import CorpusCurl

/// HTTP(S) GET over libcurl, streaming bodies to a callback.
///
/// TLS verification stays on (libcurl's default), proxy environment variables are honoured
/// (libcurl's default), HTTP/2 is used where TLS offers it. Redirects are followed here, not
/// by libcurl, under `RedirectPolicy`. Transfers are blocking libcurl calls; the async API runs
/// them on a Dispatch thread so the cooperative pool never blocks. One transfer at a time per
/// client (its easy handle is reused, keeping connections alive); make more clients for parallelism.
public final class HTTPClient: @unchecked Sendable {
    // @unchecked: `easy` is only touched while `lock` is held.
    private let lock = NSLock()
    private let easy: CurlEasy
    public let configuration: HTTPClientConfiguration

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        self.configuration = configuration
        do { self.easy = try CurlEasy() } catch {
            switch error {
            case .libraryMissing: throw TransportError.network(reason: "libcurl could not be loaded (install Debian's libcurl4)")
            case .globalInitFailed: throw TransportError.network(reason: "libcurl failed to initialise")
            case .noHandle: throw TransportError.network(reason: "libcurl could not create a handle")
            }
        }
    }

    // MARK: - Async API

    /// Fetches a small document whole. Statuses other than 200 (and 304 when `allowNotModified`) throw `httpStatus`.
    public func get(_ request: HTTPRequest, allowNotModified: Bool = false) async throws -> HTTPResponse {
        try await Self.offload { [self] flag in
            var body = Data()
            let head = try perform(request, cancellation: flag, onHead: { head in
                guard head.status == 200 || (allowNotModified && head.status == 304) else { throw TransportError.httpStatus(code: head.status) }
                return head.status == 200
            }, onBody: { body.append($0.assumingMemoryBound(to: UInt8.self)) })
            return HTTPResponse(head: head, body: body)
        }
    }

    /// Runs blocking work (typically calls to `perform`) on a Dispatch thread; cancelling the
    /// calling task sets the flag, which aborts a running transfer with `TransportError.cancelled`.
    public static func offload<T: Sendable>(_ work: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, Error>) in
                DispatchQueue.global(qos: .utility).async {
                    cont.resume(with: Result { try work(flag) })
                }
            }
        } onCancel: {
            flag.cancel()
        }
    }

    // MARK: - Blocking core

    /// Sends `request`, following redirects under `RedirectPolicy`, and streams the final body.
    ///
    /// `onHead` sees the final response's status and headers before any body byte and returns
    /// whether it wants the body (false stops the transfer quietly). `onBody` receives the body
    /// in chunks; throwing from either stops the transfer and rethrows. Both run on the calling thread.
    @discardableResult
    public func perform(_ request: HTTPRequest, cancellation: CancellationFlag? = nil,
                        onHead: (HTTPResponseHead) throws -> Bool,
                        onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponseHead {
        guard let tokenOrigin = RedirectPolicy.origin(of: request.url) else {
            throw TransportError.network(reason: "not an http(s) URL: \(request.url)")
        }
        return try lock.withLock {
            var url = request.url
            var hops = 0
            while true {
                if cancellation?.isCancelled == true { throw TransportError.cancelled }
                let sendToken = request.bearerToken != nil && RedirectPolicy.origin(of: url) == tokenOrigin
                let outcome = try withoutActuallyEscaping(onHead) { onHead in
                    try withoutActuallyEscaping(onBody) { onBody in
                        try transfer(url: url, request: request, sendToken: sendToken, cancellation: cancellation,
                                     onHead: onHead, onBody: onBody)
                    }
                }
                switch outcome {
                case let .done(head):
                    return head
                case let .redirect(target):
                    hops += 1
                    guard hops <= configuration.maxRedirects else {
                        throw TransportError.redirectRefused(reason: "more than \(configuration.maxRedirects) redirects")
                    }
                    let to = try RedirectPolicy.check(from: url, to: target)
                    if request.bearerToken != nil {
                        try RedirectPolicy.checkTokenRedirect(to: to, tokenOrigin: tokenOrigin, storage: request.storageOrigins)
                    }
                    url = target
                }
            }
        }
    }

    private enum Outcome {
        case done(HTTPResponseHead)
        case redirect(String)
    }

    /// One request/response on the easy handle, without following redirects.
    private func transfer(url: String, request: HTTPRequest, sendToken: Bool, cancellation: CancellationFlag?,
                          onHead: @escaping (HTTPResponseHead) throws -> Bool,
                          onBody: @escaping (UnsafeRawBufferPointer) throws -> Void) throws -> Outcome {
        let ctx = TransferContext(url: url, cap: request.maxBodyBytes, stallTimeout: configuration.stallTimeout,
                                  minimumBytesPerSecond: configuration.minimumBytesPerSecond,
                                  cancellation: cancellation, onHead: onHead, onBody: onBody)
        var lines = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if sendToken, let token = request.bearerToken { lines.append("Authorization: Bearer \(token)") }
        let headers = CurlHeaderList(lines)
        var errorBuffer = [CChar](repeating: 0, count: 256) // CURL_ERROR_SIZE

        easy.reset()
        easy.set(CURLOPT_URL, url)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 0)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        if let ca = configuration.caBundle { easy.set(CURLOPT_CAINFO, ca) }
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(headers.list))
        easy.set(CURLOPT_HEADERFUNCTION, write: headerCallback)
        easy.set(CURLOPT_WRITEFUNCTION, write: writeCallback)
        easy.set(CURLOPT_NOPROGRESS, 0)
        easy.set(CURLOPT_XFERINFOFUNCTION, xferinfo: progressCallback)

        // The context is retained for exactly the duration of curl_easy_perform and released once.
        let unmanaged = Unmanaged.passRetained(ctx)
        defer { unmanaged.release() }
        let opaque = UnsafeRawPointer(unmanaged.toOpaque())
        easy.set(CURLOPT_HEADERDATA, pointer: opaque)
        easy.set(CURLOPT_WRITEDATA, pointer: opaque)
        easy.set(CURLOPT_XFERINFODATA, pointer: opaque)

        let code = errorBuffer.withUnsafeMutableBufferPointer { buf -> CURLcode in
            easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(buf.baseAddress))
            defer { easy.set(CURLOPT_ERRORBUFFER, pointer: nil) }
            return easy.perform()
        }
        withExtendedLifetime(headers) {}

        if let error = ctx.failure { throw error }
        if ctx.stoppedQuietly {
            // We stopped a redirect or an unwanted body ourselves; the head is what counts.
        } else if code != CURLE_OK {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw TransportError.network(reason: detail.isEmpty ? CurlEasy.describe(code) : detail)
        }
        let head = HTTPResponseHead(status: easy.responseCode, headers: ctx.headers, url: url)
        if RedirectPolicy.redirectStatuses.contains(head.status), let location = head["location"] {
            // Resolved here rather than by CURLINFO_REDIRECT_URL, which is unset when a transfer was stopped.
            guard let target = URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString else {
                throw TransportError.redirectRefused(reason: "cannot parse the redirect target")
            }
            return .redirect(target)
        }
        if !ctx.headDelivered { _ = try onHead(head) }
        return .done(head)
    }
}

/// Per-transfer state reached from libcurl's C callbacks through an `Unmanaged` pointer.
private final class TransferContext {
    let url: String
    let cap: Int64
    let stallTimeout: Double
    let minimumBytesPerSecond: Double
    let cancellation: CancellationFlag?
    let onHead: (HTTPResponseHead) throws -> Bool
    let onBody: (UnsafeRawBufferPointer) throws -> Void

    var status = 0
    var headers: [String: String] = [:]
    var headDelivered = false
    var isRedirect = false
    /// The head was refused (`onHead` threw) and the small body is being read and dropped.
    var isRefused = false
    /// Bytes of a redirect's or a refused response's body read and dropped.
    var discardedBodyBytes = 0
    /// How much of a body that is never delivered (a redirect's, a refused response's) is read
    /// to keep the connection: libcurl closes a connection whose transfer stops mid-body, so a
    /// tree's 404 for the next root key would otherwise cost the bundle download a new connection.
    static let discardLimit = 64 * 1024
    var wantsBody = true
    var stoppedQuietly = false
    var failure: Error?
    var received: Int64 = 0
    var lastProgressBytes: Int64 = -1
    var lastProgressTime = DispatchTime.now().uptimeNanoseconds
    var windowStart = DispatchTime.now().uptimeNanoseconds
    var windowStartBytes: Int64 = 0

    init(url: String, cap: Int64, stallTimeout: Double, minimumBytesPerSecond: Double, cancellation: CancellationFlag?,
         onHead: @escaping (HTTPResponseHead) throws -> Bool, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.url = url
        self.cap = cap
        self.stallTimeout = stallTimeout
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.cancellation = cancellation
        self.onHead = onHead
        self.onBody = onBody
    }

    static func from(_ p: UnsafeMutableRawPointer?) -> TransferContext {
        Unmanaged<TransferContext>.fromOpaque(p!).takeUnretainedValue()
    }

    func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            // A new response (after 1xx or a redirect): forget the previous one's headers.
            headers = [:]
            let parts = trimmed.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].lowercased()
            headers[name] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Returns false to make libcurl stop the transfer.
    func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if isRedirect || isRefused {
            // Never delivered; reading a small one keeps the connection reusable.
            discardedBodyBytes += chunk.count
            guard discardedBodyBytes <= Self.discardLimit else {
                if isRedirect { stoppedQuietly = true }
                return false
            }
            return true
        }
        if !headDelivered {
            if RedirectPolicy.redirectStatuses.contains(status) && headers["location"] != nil {
                isRedirect = true
                return body(chunk)
            }
            headDelivered = true
            do {
                wantsBody = try onHead(HTTPResponseHead(status: status, headers: headers, url: url))
            } catch {
                failure = error
                // The refusal stands either way; a body declared small is read to its end first.
                guard let length = headers["content-length"].flatMap(Int.init), length <= Self.discardLimit else { return false }
                isRefused = true
                return body(chunk)
            }
            if !wantsBody {
                stoppedQuietly = true
                return false
            }
        }
        guard received + Int64(chunk.count) <= cap else {
            failure = TransportError.tooLarge(limit: cap)
            return false
        }
        received += Int64(chunk.count)
        do {
            try onBody(chunk)
        } catch {
            failure = error
            return false
        }
        return true
    }

    /// Returns false to abort: cancelled, no byte for `stallTimeout`, or fewer than
    /// `minimumBytesPerSecond` on average over a `stallTimeout` window.
    func progress(downloaded: Int64) -> Bool {
        if cancellation?.isCancelled == true {
            failure = TransportError.cancelled
            return false
        }
        let now = DispatchTime.now().uptimeNanoseconds
        if downloaded != lastProgressBytes {
            lastProgressBytes = downloaded
            lastProgressTime = now
        } else if Double(now - lastProgressTime) / 1e9 > stallTimeout {
            failure = TransportError.stalled(seconds: stallTimeout)
            return false
        }
        let window = Double(now - windowStart) / 1e9
        if window >= stallTimeout {
            if Double(downloaded - windowStartBytes) < minimumBytesPerSecond * window {
                // Bytes still coming: too slow. Silent for half the window already: a stall in the
                // making, which the check above reports as one within the other half.
                guard Double(now - lastProgressTime) / 1e9 >= stallTimeout / 2 else {
                    failure = TransportError.tooSlow(minimumBytesPerSecond: minimumBytesPerSecond, seconds: stallTimeout)
                    return false
                }
                return true
            }
            windowStart = now
            windowStartBytes = downloaded
        }
        return true
    }
}

private let headerCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data else { return n }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
    TransferContext.from(ctx).header(line)
    return n
}

private let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data, n > 0 else { return n }
    // Returning anything but n makes libcurl fail the transfer with CURLE_WRITE_ERROR.
    return TransferContext.from(ctx).body(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

private let progressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { ctx, _, downloaded, _, _ in
    TransferContext.from(ctx).progress(downloaded: Int64(downloaded)) ? 0 : 1
}
