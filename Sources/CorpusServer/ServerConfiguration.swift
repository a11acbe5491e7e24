import Foundation
import CorpusFormat

/// How to serve a published tree. Defaults suit a small public host behind nothing.
public struct ServerConfiguration: Sendable {
    /// The published tree (catalog.json, catalogs/, keys/, bundles/, index.html).
    public var root: String
    /// IPv4 address to listen on.
    public var host: String
    /// Port to listen on; 0 picks a free one (see `HTTPServer.port`).
    public var port: UInt16
    /// The key entitlement tokens must be signed with; nil serves no entitled bundles (403).
    public var entitlementKey: PublicKey?
    /// Clock skew tolerated on token lifetimes (capped at `EntitlementVerifier.maxLeeway`).
    public var tokenLeeway: TimeInterval = 60
    /// Worker threads, each with its own epoll loop.
    public var threads: Int = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
    /// Concurrent connections in all (MHD_OPTION_CONNECTION_LIMIT).
    public var connectionLimit: Int = 1024
    /// Concurrent connections from one address (MHD_OPTION_PER_IP_CONNECTION_LIMIT).
    public var perIPConnectionLimit: Int = 64
    /// Seconds of inactivity after which a connection is closed: bounds slow-header clients.
    public var connectionTimeout: Int = 15
    /// Seconds a whole request head (request line and headers) may take to arrive, counted from
    /// the connection's start or the end of the previous response; past it the connection is
    /// closed. Bounds clients that trickle header lines just faster than `connectionTimeout`.
    /// 0 turns the bound off.
    public var requestHeadTimeout: Int = 20
    /// Where `/metrics` is served and whether it needs a token; nil: `MetricsAccess.default`
    /// for `host` (the main listener when it is loopback, else nowhere).
    public var metrics: MetricsAccess?
    /// Memory per connection for the request line and headers (MHD_OPTION_CONNECTION_MEMORY_LIMIT);
    /// a request whose headers do not fit is refused with 431.
    public var connectionMemoryLimit: Int = 32 * 1024
    /// Files (or ranges) up to this size are read with one `pread` and sent together with the
    /// headers in one write; larger ones are sent from their descriptor with sendfile. libmicrohttpd
    /// sends the headers of a descriptor-backed response in a separate write, which costs a second
    /// system call and TCP segment per request: for catalogs, signatures and keys that halves the
    /// request rate. Memory per request stays bounded by this limit. 0 sends everything by sendfile.
    public var inlineFileLimit: Int = 16 * 1024
    /// Bytes of small files (up to `inlineFileLimit` each, 1024 files at most) whose whole 200
    /// responses are kept and sent again while the file is unchanged (`SmallFileCache`): on Linux
    /// one read of an inotify queue per request (elsewhere a look at the file's identity) instead
    /// of open, read, close and building the response. 0 turns it off.
    public var smallFileCacheBytes: Int = 8 << 20
    /// How often at most the catalog pointer is checked for a new catalog.
    public var catalogCheckInterval: Duration = .seconds(1)
    /// How often at most `root` is looked at (one `stat`) for another folder swapped in by a
    /// deploy (`ServedTree`).
    public var rootCheckInterval: Duration = .seconds(1)
    /// Answers `GET /v1/search` when set (`corpusd serve --search`); nil answers 404 there.
    public var search: (any SearchBackend)?
    /// Answers `GET /v1/documents` and `GET /v1/read` when set (`corpusd serve --search`); nil answers 404 there.
    public var browse: (any BrowseBackend)?
    /// Gate-only: content-addressed files are never served but redirected (entitled ones to a
    /// presigned URL of the private location); nil serves them from the tree.
    public var storageRedirect: StorageRedirect?
    /// The payload file keys `GET /v1/keys/…` releases (`--key-store`); nil answers 404.
    public var keyStore: KeyStore?
    /// Receives one entry per finished request. Called on server threads; must be thread-safe.
    public var accessLog: (@Sendable (AccessLogEntry) -> Void)?

    public init(root: String, host: String = "127.0.0.1", port: UInt16 = 8080, entitlementKey: PublicKey? = nil,
                accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil) {
        self.root = root
        self.host = host
        self.port = port
        self.entitlementKey = entitlementKey
        self.accessLog = accessLog
    }

    /// Parses `HOST:PORT` (IPv4 host or `localhost`).
    public static func parseListen(_ text: String) throws(ServerError) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw .invalidListenAddress(text)
        }
        var host = String(text[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        var addr = in_addr()
        guard inet_pton(AF_INET, host, &addr) == 1 else { throw .invalidListenAddress(text) }
        return (host, port)
    }
}
