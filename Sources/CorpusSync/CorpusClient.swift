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
    public func addRemote(name: String, url: String, mirrors: [String], storage: [String] = [], anchor trust: TrustAnchor) throws -> Remote {
        try RemoteRegistry(home: home).add(name: name, url: url, mirrors: mirrors, storage: storage, trust: trust)
    }

    public func removeRemote(name: String) throws {
        try RemoteRegistry(home: home).remove(name: name)
    }

    /// Refreshes and persists every remote's catalog (one conditional request each when nothing changed).
    public func refreshCatalogs() async throws -> [CatalogRefresh] {
        let remotes = try RemoteRegistry.required(config().remotes)
        return try await CatalogRefresher(self, remotes: remotes, http: HTTPClient(configuration: httpConfiguration)).refreshAll()
    }

    /// What the accepted catalogs offer, without network.
    public func offered() throws -> [OfferedCorpus] {
        try CatalogRefresher.offered(home: home, remotes: try config().remotes)
    }

    public func installed() -> [InstalledVersion] { home.installed() }

    // MARK: Install, sync, import, remove

    /// Installs the named corpora: refreshes catalogs, plans (import limit before any download), then
    /// carries out each action, attempting every one. A catalog that could not be refreshed is
    /// worked from as accepted earlier and named in the report's `unrefreshed`.
    public func install(_ wanted: [WantedCorpus], progress: (@Sendable (Progress) -> Void)? = nil) async throws -> OperationReport {
        let operation = try ClientOperation.begin(self, network: true)
        let catalogs = try await operation.catalogRefresher().fetchAll(wanted: wanted)
        LifecycleStep.reached("catalogs-fetched")
        let plan = SyncPlanner(offered: catalogs.offered, installed: operation.installedRecords, importLimit: operation.importLimit)
            .planInstall(wanted)
        let outcomes = try await PlanExecutor(operation, catalogs: catalogs, progress: progress).run(plan)
        return OperationReport(outcomes: outcomes, unrefreshed: catalogs.unrefreshed)
    }

    /// Brings installed corpora to their catalogs' latest, or to the set `wanted` names.
    ///
    /// A wanted-file naming anything the catalogs do not offer (a typo, a version not offered, an
    /// unknown catalog, an ambiguous name) is refused whole (`wantedNotOffered`) before anything is
    /// installed or removed: with `prune`, a typo would otherwise remove the corpus it misspells.
    public func sync(wanted: [WantedCorpus]?, prune: Bool, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> OperationReport {
        let operation = try ClientOperation.begin(self, network: true)
        let catalogs = try await operation.catalogRefresher().fetchAll(wanted: wanted ?? [])
        LifecycleStep.reached("catalogs-fetched")
        var planner = SyncPlanner(offered: catalogs.offered, installed: operation.installedRecords, importLimit: operation.importLimit)
        planner.revoked = catalogs.revokedInstalls(operation.installedRecords, home: home)
        if let wanted {
            let unknown = planner.unresolved(wanted, remotes: catalogs.remoteNames)
            guard unknown.isEmpty else { throw SyncError.wantedNotOffered(entries: unknown) }
        }
        let outcomes = try await PlanExecutor(operation, catalogs: catalogs, progress: progress).run(planner.planSync(wanted: wanted, prune: prune))
        return OperationReport(outcomes: outcomes, unrefreshed: catalogs.unrefreshed)
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
