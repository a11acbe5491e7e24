import Foundation

/// Who may read `/metrics`. The counters say how busy the host is, how many tokens fail and how
/// many connections are open: not secret, but not for anyone on the internet either.
///
/// The default (`default(listenHost:)`) keeps what existing setups rely on where it is safe:
/// `/metrics` on the main listener when that is loopback (127.0.0.0/8: only this machine, or a
/// front such as nginx, reaches it), and nowhere when the server listens on a public address,
/// unless an operator says otherwise with a listener of its own or a bearer token.
public struct MetricsAccess: Sendable, Equatable {
    public enum Place: Sendable, Equatable {
        /// `/metrics` beside the tree, on the main listener.
        case mainListener
        /// A second listener that answers `/metrics` and `/healthz` only (port 0 picks one).
        case ownListener(host: String, port: UInt16)
        /// Not served: 404.
        case nowhere
    }

    public var place: Place
    /// When set, a scrape must send `Authorization: Bearer TOKEN` (401 otherwise).
    public var token: String?

    public init(place: Place, token: String? = nil) {
        self.place = place
        self.token = token
    }

    /// The host of the listener of its own, when it has one.
    public var ownListenerHost: String? {
        if case let .ownListener(host, _) = place { return host }
        return nil
    }

    /// The main listener when it is loopback, else nowhere.
    public static func `default`(listenHost: String) -> MetricsAccess {
        MetricsAccess(place: isLoopback(listenHost) ? .mainListener : .nowhere)
    }

    static func isLoopback(_ host: String) -> Bool {
        var addr = in_addr()
        guard inet_pton(AF_INET, host, &addr) == 1 else { return false }
        return UInt32(bigEndian: addr.s_addr) >> 24 == 127
    }

    /// The shortest token accepted, so that a scrape token cannot be guessed in a few tries.
    public static let minTokenLength = 16

    /// Whether a request's Authorization header carries the token (when one is required).
    /// Compared in constant time: the comparison must not tell how much of a guess was right.
    func admits(authorization: String?) -> Bool {
        guard let token else { return true }
        guard let presented = Gatekeeper.bearer(authorization) else { return false }
        let a = Array(presented.utf8), b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= (i < a.count ? a[i] : 0) ^ b[i] }
        return difference == 0
    }
}
