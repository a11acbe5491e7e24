import Foundation

/// One GET request as `HTTPClient` sends it.
public struct HTTPRequest: Sendable, CustomStringConvertible {
    public var url: String
    /// Extra headers (`Range`, `If-None-Match`, …). `Authorization` is refused here: use `bearerToken`.
    public var headers: [String: String]
    /// Sent as `Authorization: Bearer …` only to the scheme, host and port of `url`, never
    /// across a redirect to another origin.
    public var bearerToken: String?
    /// The most body bytes to accept; one more aborts the transfer with `TransportError.tooLarge`.
    public var maxBodyBytes: Int64
    /// Origins (`RedirectPolicy.Origin.text`) a request carrying `bearerToken` may be redirected
    /// to, without the token; a redirect of such a request to any other origin is refused.
    public var storageOrigins: [String]

    public init(url: String, headers: [String: String] = [:], bearerToken: String? = nil, maxBodyBytes: Int64, storageOrigins: [String] = []) {
        self.url = url
        self.storageOrigins = storageOrigins
        self.headers = headers.filter { $0.key.lowercased() != "authorization" }
        self.bearerToken = bearerToken
        self.maxBodyBytes = maxBodyBytes
    }

    /// Never shows the token.
    public var description: String { "GET \(url)" + (bearerToken == nil ? "" : " (with token)") }
}

/// The status line and headers of the final response (after redirects).
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case; a repeated header keeps its last value.
    public var headers: [String: String]
    /// The URL that answered, after any redirects.
    public var url: String

    public init(status: Int, headers: [String: String], url: String) {
        self.status = status
        self.headers = headers
        self.url = url
    }

    public subscript(_ name: String) -> String? { headers[name.lowercased()] }

    public var etag: String? { self["etag"] }
    public var lastModified: String? { self["last-modified"] }
    public var contentLength: Int64? { Self.contentLength(headers) }

    /// `Content-Length` of lower-cased `headers`, for a transport that has no head yet.
    package static func contentLength(_ headers: [String: String]) -> Int64? {
        headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `Content-Range: bytes FIRST-LAST/TOTAL` parsed, or nil when absent or malformed.
    public var contentRange: ContentRange? { self["content-range"].flatMap(ContentRange.init(header:)) }
}

/// A parsed `Content-Range` header (RFC 9110 §14.4) of a 206 response.
public struct ContentRange: Sendable, Equatable {
    public var first: Int64
    public var last: Int64
    /// nil when the server sent `*`.
    public var total: Int64?

    public init(first: Int64, last: Int64, total: Int64?) {
        self.first = first
        self.last = last
        self.total = total
    }

    public init?(header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first else { return nil }
        let total: Int64?
        if parts[1] == "*" { total = nil } else {
            guard let t = Int64(parts[1]), t > last else { return nil }
            total = t
        }
        self.init(first: first, last: last, total: total)
    }
}

/// A whole small response (pointer, catalog, key documents, signatures).
public struct HTTPResponse: Sendable {
    public var head: HTTPResponseHead
    public var body: Data

    public init(head: HTTPResponseHead, body: Data) {
        self.head = head
        self.body = body
    }
}

/// Knobs of `HTTPClient`; tests shrink the timeouts.
public struct HTTPClientConfiguration: Sendable {
    /// Seconds to establish a TCP (and TLS) connection.
    public var connectTimeout: Double = 15
    /// Seconds without a single body byte (or, before the response, without the headers) before giving up.
    public var stallTimeout: Double = 30
    /// Bytes per second a transfer must average over each `stallTimeout` window, so a server
    /// trickling a byte now and then cannot hold a client forever (TUF slow retrieval).
    public var minimumBytesPerSecond: Double = 1024
    /// Redirects the client follows itself (the transport's own following is off).
    public var maxRedirects: Int = 5
    /// A PEM file of CA certificates to trust instead of the system store (for private hosts).
    public var caBundle: String?
    public var userAgent: String = ProductVersion.userAgent("corpus")
    /// The transport (`.curl`, `.urlSession`); nil: the platform's default (`HTTPTransportFactory`).
    public var transport: HTTPTransportFactory?
    /// Offline mode (`corpus --offline`, `CORPUS_OFFLINE=1`): no client is made, so no request is sent.
    public var offline = false
    /// The cap on the bytes per second of every transfer made with this configuration, together
    /// (`--limit-rate`); nil: no cap. Shared by copies, so parallel downloads share it too.
    public var rateLimit: RateLimit?

    public init(connectTimeout: Double = 15, stallTimeout: Double = 30, minimumBytesPerSecond: Double = 1024,
                maxRedirects: Int = 5, caBundle: String? = nil, transport: HTTPTransportFactory? = nil) {
        self.transport = transport
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.maxRedirects = maxRedirects
        self.caBundle = caBundle
    }
}

/// A flag set when the async task waiting on a blocking transfer is cancelled; the transport
/// polls it (through `TransferState.progress`) and aborts the transfer.
public final class CancellationFlag: @unchecked Sendable {
    // @unchecked: the only state is a Bool guarded by `lock`.
    private let lock = NSLock()
    private var flag = false

    public init() {}

    public func cancel() { lock.withLock { flag = true } }
    public var isCancelled: Bool { lock.withLock { flag } }
}
