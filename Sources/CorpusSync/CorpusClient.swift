import CorpusFormat
import Foundation

/// The client library's front door: what the `corpus` command does, as calls an app can make.
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

    /// The token stored by `corpus login`, or nil.
    public static func storedToken(_ home: HomeLayout) -> String? {
        guard let data = FileManager.default.contents(atPath: home.token) else { return nil }
        let t = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    /// The stored token, refused as a damaged local file when it is not a token at all (it would
    /// otherwise be sent, refused by the server, and reported as a missing entitlement).
    public static func loadStoredToken(_ home: HomeLayout) throws -> String? {
        guard let token = storedToken(home) else { return nil }
        do {
            _ = try EntitlementToken.decodeUnverified(token)
        } catch {
            throw SyncError.localFileDamaged(path: home.token, reason: "it is not an entitlement token (\(error))")
        }
        return token
    }

    /// The token's claims, read without verification: only the server can verify a token (it holds
    /// the key); the client uses the claims to show what is locked and to apply the import limit.
    public var claims: EntitlementClaims? {
        guard let token else { return nil }
        return try? EntitlementToken.decodeUnverified(token).claims
    }

    // MARK: Remotes

    public func config() throws -> ClientConfig { try ClientConfig.load(home) }

    /// Pins a catalog's root key. No network: the first fetch verifies against the pinned key.
    public func addRemote(name: String, url: String, mirrors: [String], trust: PublicKey) throws -> Remote {
        let remote = try Remote(name: name, url: url, mirrors: mirrors, rootKey: trust)
        guard name != HomeLayout.localRemote else { throw SyncError.reservedRemoteName(name) }
        var config = try ClientConfig.load(home)
        if let existing = config.remote(named: name), existing.rootKey != remote.rootKey {
            let pinned = (try? existing.pinnedKey().keyID.description) ?? "(unreadable)"
            throw SyncError.remotePinned(name: name, pinnedKeyID: pinned, givenKeyID: trust.keyID.description)
        }
        config.remotes.removeAll { $0.name == name }
        config.remotes.append(remote)
        try config.save(home)
        return remote
    }

    public func removeRemote(name: String) throws {
        var config = try ClientConfig.load(home)
        guard config.remote(named: name) != nil else { throw SyncError.notFound(file: "remote \(name)") }
        config.remotes.removeAll { $0.name == name }
        try config.save(home)
    }

    // MARK: Catalogs

    /// The outcome of refreshing one remote's catalog.
    public struct CatalogRefresh: Sendable {
        public var remote: Remote
        public var result: Result<CatalogFetcher.Update, SyncError>
    }

    /// Refreshes every remote's catalog (one conditional request each when nothing changed).
    public func refreshCatalogs() async throws -> [CatalogRefresh] {
        let config = try ClientConfig.load(home)
        guard !config.remotes.isEmpty else {
            throw SyncError.notFound(file: "remote (none configured; add one with `corpus remote add NAME URL --trust KEY.pub`)")
        }
        var fetcher = CatalogFetcher(home: home, client: try HTTPClient(configuration: httpConfiguration), retry: retry)
        fetcher.deadline = catalogDeadline
        var out: [CatalogRefresh] = []
        for remote in config.remotes {
            do {
                out.append(CatalogRefresh(remote: remote, result: .success(try await fetcher.refresh(remote))))
            } catch let e as SyncError {
                out.append(CatalogRefresh(remote: remote, result: .failure(e)))
            }
        }
        return out
    }

    /// What the accepted catalogs offer, without network.
    public func offered() throws -> [OfferedCorpus] {
        let config = try ClientConfig.load(home)
        let state = CatalogState(home: home)
        var out: [OfferedCorpus] = []
        for remote in config.remotes {
            guard let accepted = try state.accepted(remote.name) else { continue }
            out += accepted.catalog.corpora.map { OfferedCorpus(remote: remote.name, entry: $0) }
        }
        return out
    }

    /// True unless the token's claims cover an entitled corpus (free ones are never locked). It
    /// follows the server's rule: where the catalog id is known, the token must name it in `aud`.
    public func isLocked(_ offer: OfferedCorpus, catalogID: String?) -> Bool {
        guard offer.entry.access == .entitled else { return false }
        guard let claims else { return true }
        if let catalogID, !claims.audience.contains(catalogID) { return true }
        if claims.expiresAt < Date() { return true }
        return !claims.covers(corpus: offer.entry.id, tier: offer.entry.tier)
    }

    /// The import limit in force: the lower of the token's claim and the configured one.
    public func importLimit() throws -> Int? {
        let configured = try ClientConfig.load(home).importLimit
        switch (claims?.importLimit, configured) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b): return b
        }
    }

    // MARK: Installed state

    public func installed() -> [InstalledVersion] { home.installed() }

    public func planner() throws -> SyncPlanner {
        SyncPlanner(offered: try offered(), installed: installed().map(\.record.asRecord), importLimit: try importLimit())
    }

    // MARK: Install, sync, remove

    /// What happened to one corpus in an install or sync.
    public struct Outcome: Sendable {
        /// `repaired`: the installed version's files did not verify and it was reinstalled, verified.
        public enum Kind: String, Sendable { case installed, updated, unchanged, repaired, removed, failed }

        /// True for what changed the home folder.
        public var changed: Bool { [.installed, .updated, .repaired, .removed].contains(kind) }
        public var name: String
        public var kind: Kind
        public var version: String?
        public var previousVersion: String?
        public var error: SyncError?
    }

    public enum Progress: Sendable {
        case downloading(name: String, DownloadProgress)
        case verifying(name: String)
        case installed(name: String, version: String)
    }

    /// Installs the named corpora: refreshes catalogs, plans (import limit before any download), then
    /// carries out each action, attempting every one.
    public func install(_ wanted: [WantedCorpus], progress: (@Sendable (Progress) -> Void)? = nil) async throws -> [Outcome] {
        let pending = try await fetchCatalogs()
        LifecycleStep.reached("catalogs-fetched")
        let plan = try planner(pending).planInstall(wanted)
        return try await execute(plan, pending: pending, progress: progress)
    }

    /// Brings installed corpora to their catalogs' latest, or to the set `wanted` names.
    ///
    /// A wanted-file naming anything the catalogs do not offer (a typo, a version not offered, an
    /// unknown catalog, an ambiguous name) is refused whole (`wantedNotOffered`) before anything is
    /// installed or removed: with `prune`, a typo would otherwise remove the corpus it misspells.
    public func sync(wanted: [WantedCorpus]?, prune: Bool, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> [Outcome] {
        let pending = try await fetchCatalogs()
        LifecycleStep.reached("catalogs-fetched")
        let planner = try planner(pending)
        if let wanted {
            let unknown = planner.unresolved(wanted, remotes: Set(pending.map(\.remote.name)))
            guard unknown.isEmpty else { throw SyncError.wantedNotOffered(entries: unknown) }
        }
        let plan = planner.planSync(wanted: wanted, prune: prune)
        return try await execute(plan, pending: pending, progress: progress)
    }

    func planner(_ pending: [CatalogFetcher.Pending]) throws -> SyncPlanner {
        let offered = pending.flatMap { p in p.update.catalog.corpora.map { OfferedCorpus(remote: p.remote.name, entry: $0) } }
        return SyncPlanner(offered: offered, installed: installed().map(\.record.asRecord), importLimit: try importLimit())
    }

    /// Fetches and verifies every remote's catalog without persisting it. A refusal from any remote
    /// stops the operation; a network failure falls back to the last accepted, unexpired catalog.
    func fetchCatalogs() async throws -> [CatalogFetcher.Pending] {
        let config = try ClientConfig.load(home)
        guard !config.remotes.isEmpty else {
            throw SyncError.notFound(file: "remote (none configured; add one with `corpus remote add NAME URL --trust KEY.pub`)")
        }
        var fetcher = CatalogFetcher(home: home, client: try HTTPClient(configuration: httpConfiguration), retry: retry)
        fetcher.deadline = catalogDeadline
        var out: [CatalogFetcher.Pending] = []
        for remote in config.remotes {
            do {
                out.append(try await fetcher.fetch(remote))
            } catch let e as SyncError {
                guard e.category == .network, let accepted = try CatalogState(home: home).accepted(remote.name),
                      let expiry = accepted.catalog.expiryDate, expiry > Date() else { throw e }
                out.append(CatalogFetcher.Pending(remote: remote, update: .unchanged(accepted.catalog),
                                                  root: try TrustStore(home: home).currentRoot(for: remote),
                                                  links: [], accepted: nil, fetch: nil))
            }
        }
        return out
    }

    /// Carries out a plan, then persists the catalogs it was made from unless it only failed:
    /// a refused download leaves the home folder as it was.
    func execute(_ plan: [SyncAction], pending: [CatalogFetcher.Pending], progress: (@Sendable (Progress) -> Void)?) async throws -> [Outcome] {
        // Folders of the layout this run creates are taken away again if it changes nothing.
        let absent = home.layoutFolders.filter { !FileIO.exists($0) }
        let outcomes = try await execute(plan, roots: Dictionary(pending.map { ($0.remote.name, $0.root.key) }, uniquingKeysWith: { a, _ in a }),
                                         embedders: Dictionary(pending.map { ($0.remote.name, $0.update.catalog.embedders ?? []) }, uniquingKeysWith: { a, _ in a }),
                                         offered: pending.flatMap { p in p.update.catalog.corpora.map { OfferedCorpus(remote: p.remote.name, entry: $0) } },
                                         progress: progress)
        let changed = outcomes.contains(where: \.changed)
        if changed || outcomes.allSatisfy({ $0.error == nil }) {
            LifecycleStep.reached("before-catalog-commit")
            for p in pending { try p.commit(home: home) }
            LifecycleStep.reached("catalog-committed")
        } else {
            for dir in absent.reversed() { rmdir(dir) }
        }
        return outcomes
    }

    /// Installs a local bundle under the `local` remote, verified against the trusted root keys of
    /// every configured remote (or the keys given). It counts against the import limit.
    @discardableResult
    public func importBundle(path: String, trustedKeys extra: [PublicKey] = []) throws -> Manifest {
        let config = try ClientConfig.load(home)
        let roots = try config.remotes.map { try TrustStore(home: home).currentRoot(for: $0).key }
        let keys = extra + roots
        guard !keys.isEmpty else {
            throw SyncError.untrustedKey(keyID: "(none: add a remote with --trust, or pass --trust KEY.pub)")
        }
        let manifest: Manifest
        let signature: Signature
        do {
            (manifest, _, signature) = try BundleReader(path: path).manifest(trustedKeys: keys)
        } catch let e as FormatError { throw SyncError.from(e) }
        // Counted here to refuse before extracting anything, and again by the installer under the
        // home's import lock, where a concurrent install cannot slip in between.
        let limit = try importLimit()
        let already = installed().contains { $0.record.remote == HomeLayout.localRemote && $0.record.id == manifest.id }
        if !already, let limit {
            let used = installed().filter { !$0.record.bundled }.count
            if used >= limit { throw SyncError.importLimit(used: used, limit: limit) }
        }
        let installedManifest = try Installer(home: home)
            .install(bundlePath: path, remote: HomeLayout.localRemote, expected: nil, bundled: false, trustedKeys: keys,
                     importLimit: limit)
        // A key given with --trust is remembered, so that `verify` can check this corpus later.
        if let key = extra.first(where: { $0.keyID == signature.keyID }), !roots.contains(key) {
            try TrustStore(home: home).rememberLocal(key)
        }
        return installedManifest
    }

    /// Removes an installed corpus by `id` or `remote/id`.
    public func remove(_ name: String) throws -> InstalledCorpusRecord {
        let p = SyncPlanner(offered: [], installed: installed().map(\.record.asRecord), importLimit: nil)
        switch p.resolveInstalled(name) {
        case let .success(r):
            try Installer(home: home).remove(remote: r.remote, id: r.id)
            return r
        case .failure(.ambiguous(let c)):
            throw SyncError.ambiguousName(name: name, candidates: c)
        case .failure:
            throw SyncError.notInstalled(name: name)
        }
    }

    // MARK: Verify and gc

    public struct VerifyOutcome: Sendable {
        public var name: String
        public var error: SyncError?
    }

    /// Re-checks installed corpora: every file's hash and size against its signed manifest, the
    /// manifest's signature against the trusted keys (for imports, also the keys they were trusted
    /// with), and the pack's integrity. A corpus whose install record is damaged is named too.
    public func verify(_ name: String?) throws -> [VerifyOutcome] {
        func selected(_ remote: String, _ id: String) -> Bool { name == nil || name == id || name == "\(remote)/\(id)" }
        let targets = installed().filter { selected($0.record.remote, $0.record.id) }
        let damaged = home.damagedInstalls().filter { d in
            let parts = d.name.split(separator: "/").map(String.init)
            return selected(parts[0], parts[1])
        }
        if let name, targets.isEmpty, damaged.isEmpty { throw SyncError.notInstalled(name: name) }
        _ = try ClientConfig.load(home)
        var out = targets.map { c in
            let name = "\(c.record.remote)/\(c.record.id)"
            return VerifyOutcome(name: name, error: fullCheck(directory: c.directory, remote: c.record.remote, name: name))
        }
        out += damaged.map { VerifyOutcome(name: $0.name, error: $0.error) }
        return out.sorted { $0.name < $1.name }
    }

    public struct GCReport: Sendable {
        public var removedVersions: [String] = []
        public var removedPartials: [String] = []
        public var removedStaging: [String] = []
        /// Embedder models (`id/digest`) no installed corpus names any more.
        public var removedEmbedders: [String] = []
        public var bytesFreed: Int64 = 0
    }

    /// Removes versions that are not current, staging leftovers, partial downloads, and embedder
    /// models no installed corpus names.
    /// Takes each corpus's lock, so it never removes what an install is writing.
    public func gc() throws -> GCReport {
        var report = GCReport()
        let fm = FileManager.default
        let installer = Installer(home: home)
        for remote in ((try? fm.contentsOfDirectory(atPath: home.corpora)) ?? []).sorted() where Identifier.isValid(remote) {
            for id in ((try? fm.contentsOfDirectory(atPath: home.corpora(remote))) ?? []).sorted() where Identifier.isValid(id) {
                guard let lock = try? installer.corpusLock(remote: remote, id: id, wait: .no) else { continue }
                defer { withExtendedLifetime(lock) {} }
                let corpusDir = home.corpusDirectory(remote: remote, id: id)
                let current = home.currentVersionDirectory(remote: remote, id: id).map { ($0 as NSString).lastPathComponent }
                let versions = home.versionsDirectory(remote: remote, id: id)
                for v in ((try? fm.contentsOfDirectory(atPath: versions)) ?? []).sorted() where v != current {
                    report.bytesFreed += HomeLayout.folderSize("\(versions)/\(v)")
                    try installer.discardTree("\(versions)/\(v)")
                    report.removedVersions.append("\(remote)/\(id)@\(v)")
                }
                // Links a killed install made but never renamed over `current` (we hold the lock,
                // so no live install is making one).
                let linkPrefix = "current\(Installer.linkTemporarySuffix)"
                for name in (try? fm.contentsOfDirectory(atPath: corpusDir)) ?? [] where name.hasPrefix(linkPrefix) {
                    unlink("\(corpusDir)/\(name)")
                    report.removedStaging.append("\(remote)/\(id)/\(name)")
                }
                if current == nil {
                    try installer.discardTree(corpusDir)
                }
            }
        }
        let models = EmbedderInstaller(home: home)
        let unusedModels = models.gc(referenced: models.referenced())
        report.removedEmbedders = unusedModels.removed
        report.bytesFreed += unusedModels.bytesFreed
        try io { try FileIO.createDirectory(home.locks) }
        let shared = try? home.lock(Self.downloadsLockName, wait: .no)
        if let shared {
            defer { withExtendedLifetime(shared) {} }
            for name in (try? fm.contentsOfDirectory(atPath: home.downloads)) ?? [] {
                let path = "\(home.downloads)/\(name)"
                report.bytesFreed += FileIO.fileSize(path) ?? 0
                FileIO.remove(path)
                report.removedPartials.append(name)
            }
        }
        for name in (try? fm.contentsOfDirectory(atPath: home.staging)) ?? [] {
            // Staging folders start with their creator's pid (`<pid>.<random>.…`, or `.<pid>.…` while
            // the bundle reader fills one); leave those of live processes alone.
            if let pid = Self.stagingOwner(name), pid != getpid(), kill(pid, 0) == 0 { continue }
            report.bytesFreed += HomeLayout.folderSize("\(home.staging)/\(name)")
            FileIO.remove("\(home.staging)/\(name)")
            report.removedStaging.append(name)
        }
        return report
    }

    static let downloadsLockName = "downloads"

    /// The pid a staging entry's name starts with.
    static func stagingOwner(_ name: String) -> Int32? {
        let trimmed = name.hasPrefix(".") ? name.dropFirst() : Substring(name)
        return trimmed.split(separator: ".", maxSplits: 1).first.flatMap { Int32($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Held (shared) by every process downloading; `gc` removes partials only when it can take it exclusively.
    func sharedDownloadsLock() throws -> FileLock {
        try home.lock(Self.downloadsLockName, mode: .shared, wait: lockWait)
    }
}

extension SyncAction {
    var needsDownload: Bool {
        switch self {
        case .install, .update: return true
        default: return false
        }
    }
}

extension SyncError {
    /// A write failed because the volume (or the process's file size limit) is full.
    public var isOutOfSpace: Bool {
        guard case let .io(_, _, code) = self else { return false }
        return code == ENOSPC || code == EFBIG || code == EDQUOT
    }
}
