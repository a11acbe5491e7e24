import Foundation
// The HTTP value types (requests, heads, `TransportError`, the configuration) are the client's
// public API; they live in CorpusHTTP so that the URLSession transport can use them without
// depending on CorpusSync.
@_exported import CorpusHTTP
#if canImport(Darwin)
import CorpusURLSession
#endif

/// HTTP(S) GET, streaming bodies to a callback, over an `HTTPTransport` (libcurl or URLSession:
/// `HTTPClientConfiguration.transport`).
///
/// Redirects are followed here, not by the transport, under `RedirectPolicy`. Transfers are
/// blocking calls; the async API runs each on a thread of its own so neither the cooperative pool
/// nor Dispatch's workers ever block. One transfer at a time per client (its transport keeps connections alive); make more
/// clients for parallelism.
public final class HTTPClient: @unchecked Sendable {
    // @unchecked: `transport` is only touched while `lock` is held.
    private let lock = NSLock()
    private let transport: any HTTPTransport
    public let configuration: HTTPClientConfiguration

    /// Refused (`SyncError.offline`) in offline mode: the one place every request of the client
    /// begins, so offline mode cannot leak a request from a path that forgot to check it.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        guard !configuration.offline else { throw SyncError.offline(action: "this command") }
        self.configuration = configuration
        guard let factory = configuration.transport ?? .platformDefault else {
            throw TransportError.network(reason: "this build has no default HTTP transport; set HTTPClientConfiguration.transport (.urlSession, from CorpusURLSession)")
        }
        self.transport = try factory.make(configuration)
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

    /// Runs blocking work (typically calls to `perform`) on a thread of its own; cancelling the
    /// calling task sets the flag, which aborts a running transfer with `TransportError.cancelled`.
    public static func offload<T: Sendable>(_ work: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
        try await DedicatedThread.run(name: "corpus.http", work)
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
                        var headers = request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
                        if sendToken, let token = request.bearerToken { headers.append((name: "Authorization", value: "Bearer \(token)")) }
                        // Every value this request would carry, checked once before either transport sees it.
                        if let problem = RequestFieldCheck.problem(url: url, headers: headers + [(name: "User-Agent", value: configuration.userAgent)]) {
                            throw TransportError.unsafeRequest(reason: problem)
                        }
                        let state = TransferState(url: url, cap: request.maxBodyBytes, stallTimeout: configuration.stallTimeout,
                                                  minimumBytesPerSecond: configuration.minimumBytesPerSecond,
                                                  cancellation: cancellation, rateLimit: configuration.rateLimit, onHead: onHead, onBody: onBody)
                        return try transport.transfer(url: url, headers: headers, state: state)
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
}

extension HTTPTransportFactory {
    /// libcurl on Linux, URLSession on Apple platforms; none in a Linux build with
    /// `-DCORPUS_APPLE_SEAMS`, which compiles no libcurl code (scripts/apple-seams.sh).
    public static var platformDefault: HTTPTransportFactory? {
        #if canImport(Darwin)
        return .urlSession
        #elseif CORPUS_APPLE_SEAMS
        return nil
        #else
        return .curl
        #endif
    }
}
