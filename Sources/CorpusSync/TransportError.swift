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
    /// No body byte arrived for `seconds`.
    case stalled(seconds: Double)
    /// A redirect the client will not follow: https→http, another scheme, or too many hops.
    case redirectRefused(reason: String)
    case cancelled

    /// True when asking the same server again may succeed.
    public var isTransient: Bool {
        switch self {
        case .network, .stalled: return true
        case let .httpStatus(code): return code == 408 || code == 429 || code >= 500
        case .tooLarge, .redirectRefused, .cancelled: return false
        }
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .network(reason): return "network error: \(reason)"
        case let .httpStatus(code): return "the server answered HTTP \(code)"
        case let .tooLarge(limit): return "the server sent more than \(limit) bytes"
        case let .stalled(seconds): return "no data for \(Int(seconds.rounded(.up))) s"
        case let .redirectRefused(reason): return "redirect refused: \(reason)"
        case .cancelled: return "cancelled"
        }
    }
}
