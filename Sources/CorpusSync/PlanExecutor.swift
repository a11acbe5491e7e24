import CorpusFormat
import Foundation

/// Carries out a sync plan: each action in turn, every one attempted, each reported as an
/// `Outcome`; then persists the catalogs the plan was made from, unless the run only failed.
///
/// A kept corpus is checked for damage first (cheaply; see `InstalledVerification.damage(of:)`)
/// and a damaged one is reinstalled from its catalog, verified, as `repaired`. Installing an
/// offered corpus is `install(_:previous:repairing:)` (OfferInstall.swift).
struct PlanExecutor: Sendable {
    let operation: ClientOperation
    let catalogs: PendingCatalogs
    let progress: (@Sendable (CorpusClient.Progress) -> Void)?
    let downloader: Downloader
    let installer: Installer

    init(_ operation: ClientOperation, catalogs: PendingCatalogs, progress: (@Sendable (CorpusClient.Progress) -> Void)?) {
        guard let http = operation.http else { preconditionFailure("a plan is carried out by an operation with network") }
        self.operation = operation
        self.catalogs = catalogs
        self.progress = progress
        downloader = Downloader(home: operation.home, client: http, retry: operation.settings.retry)
        installer = Installer(home: operation.home)
    }

    var home: HomeLayout { operation.home }

    /// Carries out `plan`, then commits the catalogs when anything changed or nothing failed: a
    /// refused download leaves the home folder as it was, catalog state included.
    func run(_ plan: [SyncAction]) async throws -> [CorpusClient.Outcome] {
        // Folders of the layout this run creates are taken away again if it changes nothing.
        let absent = home.layoutFolders.filter { !FileIO.exists($0) }
        let outcomes = try await perform(plan)
        if outcomes.contains(where: \.changed) || outcomes.allSatisfy({ $0.error == nil }) {
            LifecycleStep.reached("before-catalog-commit")
            try catalogs.commit(home: home)
            LifecycleStep.reached("catalog-committed")
        } else {
            for dir in absent.reversed() { rmdir(dir) }
        }
        return outcomes
    }

    /// Each action of `plan` in turn; one that fails does not stop the others.
    func perform(_ plan: [SyncAction]) async throws -> [CorpusClient.Outcome] {
        // Shared while downloading, so `gc` (which takes it exclusively) never deletes a live partial.
        var downloadsLock = plan.contains(where: \.needsDownload) ? try sharedDownloadsLock() : nil
        defer { withExtendedLifetime(downloadsLock) {} }
        var outcomes: [CorpusClient.Outcome] = []
        for action in plan {
            switch action {
            case let .keep(have):
                outcomes.append(await keep(have, downloadsLock: &downloadsLock))
            case let .refuse(name, reason):
                outcomes.append(.init(name: name, kind: .failed, error: Self.error(for: reason, name: name)))
            case let .remove(have):
                outcomes.append(remove(have))
            case let .install(offer):
                outcomes.append(await install(offer, previous: nil, repairing: false))
            case let .update(from, offer):
                outcomes.append(await install(offer, previous: from.version.description, repairing: false))
            }
        }
        return outcomes
    }

    static func error(for refusal: SyncRefusal, name: String) -> SyncError {
        switch refusal {
        case .notFound: return .notFound(file: "corpus \(name)")
        case let .ambiguous(candidates): return .ambiguousName(name: name, candidates: candidates)
        case let .versionNotOffered(v): return .notFound(file: "version \(v) of \(name)")
        case let .importLimit(used, limit): return .importLimit(used: used, limit: limit)
        }
    }

    func remove(_ have: InstalledCorpusRecord) -> CorpusClient.Outcome {
        do {
            try installer.remove(remote: have.remote, id: have.id)
            return .init(name: have.qualifiedName, kind: .removed, previousVersion: have.version.description)
        } catch {
            return .init(name: have.qualifiedName, kind: .failed, error: .carrying(error, what: have.qualifiedName))
        }
    }

    /// A corpus the plan keeps: repaired when its files no longer verify, and its model restored
    /// when the model folder went missing.
    func keep(_ have: InstalledCorpusRecord, downloadsLock: inout FileLock?) async -> CorpusClient.Outcome {
        let version = have.version.description
        do {
            if let damage = InstalledVerification(home: home, config: operation.config).damage(of: have) {
                // Only the version the catalog offers can be fetched again.
                guard let offer = catalogs.listed.first(where: { $0.remote == have.remote && $0.entry.id == have.id && $0.entry.version == have.version }) else {
                    return .init(name: have.qualifiedName, kind: .failed, version: version, error: damage)
                }
                if downloadsLock == nil { downloadsLock = try sharedDownloadsLock() }
                return await install(offer, previous: nil, repairing: true)
            }
            try await EmbedderInstaller(home: home).repair(have, remote: operation.config.remote(named: have.remote),
                                                           keys: catalogs.catalogKeys[have.remote],
                                                           offered: catalogs.embedders[have.remote] ?? [], downloader: downloader)
            return .init(name: have.qualifiedName, kind: .unchanged, version: version)
        } catch {
            return .init(name: have.qualifiedName, kind: .failed, version: version, error: .carrying(error, what: have.qualifiedName))
        }
    }

    /// Held (shared) by every process downloading; `gc` removes partials only when it can take it exclusively.
    func sharedDownloadsLock() throws -> FileLock {
        try HomeLocks(home: home).downloads(.shared, wait: operation.settings.lockWait)
    }
}

extension CorpusClient {
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
        /// How an installed, updated or repaired corpus arrived: by delta or full bundle.
        public var via: Via?
        /// Bytes of the files fetched for it in this run (a delta, a bundle, or both when a delta
        /// was fetched and then not used); a partial download resumed counts whole.
        public var bytesDownloaded: Int64?
        /// The delta that was tried and not used, when the update fell back to the full bundle.
        public var deltaError: SyncError?

        public enum Via: String, Sendable { case delta, full }
    }

    /// Progress of an install or sync, for the caller to draw (the library prints nothing).
    public enum Progress: Sendable {
        case downloading(name: String, DownloadProgress)
        case verifying(name: String)
        case installed(name: String, version: String)
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

extension HomeLayout {
    /// The folders `createFolders` makes, parents first (without `locks/`, whose files may stay).
    var layoutFolders: [String] { [root, downloads, staging, "\(root)/trust", "\(root)/state", corpora] }
}
