/// Why one HTTP exchange failed. `HTTPClient` throws these; `Downloader` and `CatalogFetcher`
/// decide from them whether to retry, fail over or give up (see docs/client.md).
///
/// No case carries a request header: a bearer token can never reach a description.
public enum TransportError: Error, Equatable, Sendable {
    /// Could not connect, the connection broke, TLS failed, or the response was cut short.
    case network(reason: String)
    /// The server answered with a status the caller did not accept.
    case httpStatus(code: Int)
    /// The body grew past the caller's cap (the transfer stopped at `limit + 1` bytes).
    case tooLarge(limit: Int64)
    /// No byte at all arrived for `seconds` (headers included).
    case stalled(seconds: Double)
    /// Bytes kept coming, but fewer than `minimumBytesPerSecond` on average over a window of
    /// `seconds` (TUF slow retrieval: a server trickling a byte now and then).
    case tooSlow(minimumBytesPerSecond: Double, seconds: Double)
    /// The whole operation (a catalog refresh) did not finish within its total deadline.
    case deadlineExceeded(seconds: Double, what: String)
    /// A redirect the client will not follow: https→http, another scheme, or too many hops.
    case redirectRefused(reason: String)
    /// The request was not sent: a value it would carry (the URL, a header) holds a control
    /// character (`RequestFieldCheck`). The reason names the field, never its value.
    case unsafeRequest(reason: String)
    /// The request was not sent: the HTTP library this process loaded refused an option it needs
    /// (an older libcurl than the option, or one built without it).
    case httpLibrary(CurlOptionError)
    case cancelled

    /// True when asking the same server again may succeed.
    public var isTransient: Bool {
        switch self {
        case .network, .stalled, .tooSlow: return true
        case .deadlineExceeded: return false
        case let .httpStatus(code): return code == 408 || code == 429 || code >= 500
        case .tooLarge, .redirectRefused, .unsafeRequest, .httpLibrary, .cancelled: return false
        }
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .network(reason): return "network error: \(reason)"
        case let .httpStatus(code): return "the server answered HTTP \(code)"
        case let .tooLarge(limit): return "the server sent more than \(limit) bytes"
        case let .stalled(seconds): return "no data for \(Self.seconds(seconds)) s"
        case let .tooSlow(rate, seconds): return "slower than \(Self.seconds(rate)) bytes/s over \(Self.seconds(seconds)) s"
        case let .deadlineExceeded(seconds, what): return "no complete answer within the \(Self.seconds(seconds)) s \(what) deadline"
        case let .redirectRefused(reason): return "redirect refused: \(reason)"
        case let .unsafeRequest(reason): return "request not sent: \(reason)"
        case let .httpLibrary(e): return "request not sent: \(e)"
        case .cancelled: return "cancelled"
        }
    }

    /// `30`, `0.4`, `1024`: as configured, without a trailing `.0`.
    static func seconds(_ value: Double) -> String { String(format: "%g", value) }
}
