import Foundation
import CorpusFormat

/// Serves a published tree over HTTP with libmicrohttpd: epoll worker threads, files sent from
/// their descriptors (sendfile), entitlement gating for bundles of entitled corpora, and
/// `/metrics` where `ServerConfiguration.metrics` says (see `MetricsAccess`).
///
/// `stop` stops accepting, lets responses in flight finish within a grace period, then shuts the
/// listeners down. It sleeps until the last response in flight ends (or the grace period does),
/// woken by the request-completed callback rather than looking every few milliseconds.
public final class HTTPServer {
    public let host: String
    public let port: UInt16
    public let metrics: ServerMetrics
    /// The port of the listener that serves only `/metrics`, when there is one.
    public let metricsPort: UInt16?
    private let core: ServerCore
    private let index: CatalogIndex
    private let served: ServedTree
    private let headDeadline: RequestHeadDeadline
    private var listeners: [MHDListener] = []

    public init(_ config: ServerConfiguration) throws(ServerError) {
        let served = try ServedTree(path: config.root, cacheBytes: config.smallFileCacheBytes, checkInterval: config.rootCheckInterval)
        self.served = served
        index = CatalogIndex(served: served, checkInterval: config.catalogCheckInterval)
        let verifier = config.entitlementKey.map { EntitlementVerifier(key: $0, audience: nil, leeway: config.tokenLeeway) }
        let access = config.metrics ?? MetricsAccess.default(listenHost: config.host)
        metrics = ServerMetrics()
        headDeadline = RequestHeadDeadline(seconds: config.requestHeadTimeout)
        let catalogs = index
        let routes = RequestHandler.Routes(tree: true, metrics: access.place == .mainListener ? access : nil,
                                           search: config.search.map { SearchEndpoint(backend: $0, index: catalogs) },
                                           browse: config.browse.map { BrowseEndpoint(backend: $0, index: catalogs) },
                                           keys: config.keyStore.map { KeyEndpoint(store: $0, index: catalogs) })
        core = ServerCore(handler: RequestHandler(served: served, gate: Gatekeeper(verifier: verifier, index: index), metrics: metrics,
                                                 inlineLimit: config.inlineFileLimit, routes: routes, storageRedirect: config.storageRedirect),
                          metrics: metrics, accessLog: config.accessLog, headDeadline: headDeadline)
        host = config.host
        let main = try MHDListener(host: config.host, port: config.port, threads: config.threads, core: core, config: config)
        port = main.port
        listeners = [main]
        if case let .ownListener(metricsHost, metricsPort) = access.place {
            // Scrapes are not counted in the metrics they read.
            let scrapes = ServerCore(handler: RequestHandler(served: served, gate: Gatekeeper(verifier: nil, index: index), metrics: metrics,
                                                            routes: .init(tree: false, metrics: access)),
                                     metrics: ServerMetrics(), accessLog: config.accessLog, headDeadline: headDeadline)
            let listener = try MHDListener(host: metricsHost, port: metricsPort, threads: 1, core: scrapes, config: config)
            self.metricsPort = listener.port
            listeners.append(listener)
        } else {
            self.metricsPort = nil
        }
        headDeadline.start()
    }

    /// Opens PUBLIC_DIR again by its path and reads every catalog of it now, instead of at the
    /// next check (SIGHUP). When the path names no folder that can be opened, the tree opened
    /// before is kept (its catalogs are read again) and the error says why.
    public func reload() throws(ServerError) {
        defer { index.reload() }
        try served.reopen()
    }

    /// Stops accepting connections, waits up to `grace` for responses in flight, then shuts down.
    /// Returns true when nothing was cut off.
    @discardableResult
    public func stop(grace: Duration = .seconds(30)) -> Bool {
        guard !listeners.isEmpty else { return true }
        core.stopping.store(true, ordering: .relaxed)
        for listener in listeners { listener.quiesce() }
        let drained = metrics.waitUntilNoResponseInFlight(deadline: .now + grace)
        for listener in listeners { listener.stop() }
        listeners = []
        headDeadline.stop()
        return drained
    }

    deinit { stop(grace: .zero) }
}

@available(*, unavailable) extension HTTPServer: Sendable {}
