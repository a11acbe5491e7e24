import CorpusFormat
import Foundation

/// The client library's front door: what the `corpus` command does, as calls an app can make.
///
/// Each call begins one operation (`ClientOperation`: the configuration, the installed corpora
/// and, when it uses the network, one HTTP client, each read once) and hands it to the type
/// whose job it is: `RemoteRegistry`, `CatalogRefresher`, `SyncPlanner` and `PlanExecutor`,
/// `BundleImporter`, `CorpusRemover`, `InstalledVerification`, `HomeGarbageCollector`.
///
/// It prints nothing; progress arrives through the `progress` callbacks and results are values.
/// Every operation that changes the home folder verifies first and persists last.
public struct CorpusClient: Sendable {
    public let home: HomeLayout
    /// The bearer token for entitled corpora (`--token`, `CORPUS_TOKEN`, or `HOME/token`).
    public var token: String?
    public var retry: RetryPolicy
    public var httpConfiguration: HTTPClientConfiguration
    /// How long an install waits for another process working on the same corpus.
    public var lockWait: FileLock.Wait = .upTo(seconds: 30)
    /// The total time one remote's catalog refresh may take (`CatalogFetcher.deadline`).
    public var catalogDeadline: Double? = CatalogFetcher.defaultDeadline

    public init(home: HomeLayout, token: String? = nil, retry: RetryPolicy = RetryPolicy(),
                httpConfiguration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.home = home
        self.token = token
        self.retry = retry
        self.httpConfiguration = httpConfiguration
    }

    // MARK: Remotes and catalogs

    public func config() throws -> ClientConfig { try ClientConfig.load(home) }

    /// Pins a catalog's root key. No network: the first fetch verifies against the pinned key.
    public func addRemote(name: String, url: String, mirrors: [String], storage: [String] = [], trust: PublicKey) throws -> Remote {
        try RemoteRegistry(home: home).add(name: name, url: url, mirrors: mirrors, storage: storage, trust: .key(trust))
    }

    /// Adds a remote pinned to `trust`: a single root key, or a root document (the way TUF clients
    /// ship their initial root).
    /// `witnesses` (cosignature verifier keys) and `witnessThreshold` make each refresh require
    /// that many of their cosignatures on the tree's log checkpoint (`TreeLogCheck`).
    /// `channel`: the channel followed besides `stable` (`Remote.channelSetting`), nil for stable only.
    public func addRemote(name: String, url: String, mirrors: [String], storage: [String] = [], anchor trust: TrustAnchor,
                          witnesses: [String] = [], witnessThreshold: Int? = nil, channel: String? = nil) throws -> Remote {
        try RemoteRegistry(home: home).add(name: name, url: url, mirrors: mirrors, storage: storage, trust: trust,
                                           witnesses: witnesses, witnessThreshold: witnessThreshold, channel: channel)
    }

    public func removeRemote(name: String) throws {
        try RemoteRegistry(home: home).remove(name: name)
    }

    /// True in offline mode (`HTTPClientConfiguration.offline`): nothing is sent; catalogs are the ones accepted earlier.
    public var offline: Bool { httpConfiguration.offline }

    /// Refreshes and persists every remote's catalog (one conditional request each when nothing
    /// changed). In offline mode nothing is sent: each remote's result is `SyncError.offline`, and
    /// the catalog accepted earlier (`acceptedCatalogAge`) is what is offered.
    ///
    /// `browsing` (`corpus catalog`): a catalog with listing parts is refreshed as `forEachOffered`
    /// reads it, its listing and only the installed entries of its trie (`CatalogFetcher.browsing`).
    /// `wanted`: ids whose entries are read beyond the installed ones (`show ID`), nil for all.
    public func refreshCatalogs(browsing: Bool = false, wanted: Set<String>? = nil) async throws -> [CatalogRefresh] {
        let remotes = try RemoteRegistry.required(config().remotes)
        if offline { return remotes.map { .init(remote: $0, result: .failure(.offline(action: "refreshing catalog \($0.name)"))) } }
        var refresher = try CatalogRefresher(self, remotes: remotes, http: HTTPClient(configuration: httpConfiguration))
        refresher.fetcher.browsing = browsing
        refresher.fetcher.wanted = wanted
        return try await refresher.refreshAll()
    }

    /// What the accepted catalogs offer this client (its channels, its rollout buckets), without network.
    public func offered() throws -> [OfferedCorpus] {
        try CatalogRefresher.offered(home: home, remotes: try config().remotes).offered
    }

    /// The channel every remote follows from now on besides `stable` (`sync --channel`); `stable` or nil: `stable` only.
    public func follow(channel: String?) throws {
        var config = try config()
        for i in config.remotes.indices { config.remotes[i].channel = try Remote.channelSetting(channel) }
        try config.save(home)
    }

    public func installed() -> [InstalledVersion] { home.installed() }

    // MARK: Install, sync, import, remove

    /// Installs the named corpora: refreshes catalogs, plans (import limit before any download), then
    /// carries out each action, attempting every one. A catalog that could not be refreshed is
    /// worked from as accepted earlier and named in the report's `unrefreshed`.
    ///
    /// `waitsForRollout` false (`install --now`) installs a version whose rollout has not reached
    /// this client yet; naming the version (`ID@VERSION`) does the same for that version.
    public func install(_ wanted: [WantedCorpus], waitsForRollout: Bool = true,
                        progress: (@Sendable (Progress) -> Void)? = nil) async throws -> OperationReport {
        guard !offline else { throw SyncError.offline(action: "install") }
        let operation = try ClientOperation.begin(self, network: true)
        let catalogs = try await operation.catalogRefresher().fetchAll(wanted: wanted)
        LifecycleStep.reached("catalogs-fetched")
        let offers = try catalogs.offers(home: home, waitsForRollout: waitsForRollout)
        var planner = SyncPlanner(offered: offers.offered, installed: operation.installedRecords, importLimit: operation.importLimit)
        planner.heldBack = offers.heldBack
        let plan = planner.planInstall(wanted)
        let outcomes = try await PlanExecutor(operation, catalogs: catalogs, progress: progress).run(plan)
        return OperationReport(outcomes: outcomes, unrefreshed: catalogs.unrefreshed)
    }

    /// Brings installed corpora to their catalogs' latest, or to the set `wanted` names.
    ///
    /// A wanted-file naming anything the catalogs do not offer (a typo, a version not offered, an
    /// unknown catalog, an ambiguous name) is refused whole (`wantedNotOffered`) before anything is
    /// installed or removed: with `prune`, a typo would otherwise remove the corpus it misspells.
    public func sync(wanted: [WantedCorpus]?, prune: Bool, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> OperationReport {
        guard !offline else { throw SyncError.offline(action: "sync") }
        let operation = try ClientOperation.begin(self, network: true)
        let catalogs = try await operation.catalogRefresher().fetchAll(wanted: wanted ?? [])
        LifecycleStep.reached("catalogs-fetched")
        let offers = try catalogs.offers(home: home)
        var planner = SyncPlanner(offered: offers.offered, installed: operation.installedRecords, importLimit: operation.importLimit)
        planner.heldBack = offers.heldBack
        planner.revoked = catalogs.revokedInstalls(operation.installedRecords, home: home)
        if let wanted {
            let unknown = planner.unresolved(wanted, remotes: catalogs.remoteNames)
            guard unknown.isEmpty else { throw SyncError.wantedNotOffered(entries: unknown) }
        }
        let outcomes = try await PlanExecutor(operation, catalogs: catalogs, progress: progress).run(planner.planSync(wanted: wanted, prune: prune))
        return OperationReport(outcomes: outcomes, unrefreshed: catalogs.unrefreshed, keptNewer: wanted == nil ? planner.keptNewer : [])
    }

    /// Installs a local bundle under the `local` remote, verified against the trusted root keys of
    /// every configured remote (or the keys given). It counts against the import limit.
    @discardableResult
    public func importBundle(path: String, trustedKeys extra: [PublicKey] = []) throws -> Manifest {
        try BundleImporter(operation: ClientOperation.begin(self, network: false)).importBundle(path: path, trustedKeys: extra)
    }

    /// Removes an installed corpus by `id` or `remote/id`.
    public func remove(_ name: String) throws -> InstalledCorpusRecord {
        try CorpusRemover(home: home).remove(name, installed: installed().map(\.record.asRecord))
    }

    // MARK: Verify and gc

    /// Re-checks installed corpora: every file's hash and size against its signed manifest, the
    /// manifest's signature against the trusted keys (for imports, also the keys they were trusted
    /// with), and the pack's integrity. A corpus whose install record is damaged is named too.
    public func verify(_ name: String?) throws -> [VerifyOutcome] {
        try InstalledVerification.verify(name, home: home)
    }

    /// Removes versions that are not current, staging leftovers, partial downloads, and embedder
    /// models no installed corpus names. Takes each corpus's lock, so it never removes what an
    /// install is writing.
    public func gc() throws -> GCReport {
        try HomeGarbageCollector(home: home).collect()
    }
}
