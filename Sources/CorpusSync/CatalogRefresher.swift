import CorpusFormat
import Foundation

/// Brings the catalog of every configured remote up to date, one `CatalogFetcher` request
/// sequence each, on the operation's HTTP client.
///
/// `refreshAll` persists each catalog that verified (`catalog`, `show`, `status`); `fetchAll`
/// keeps them pending for an install or sync, which commits them only once its work changed
/// something or fully succeeded (`PendingCatalogs.commit`), so a refused bundle leaves the home
/// as it was.
struct CatalogRefresher: Sendable {
    let home: HomeLayout
    let remotes: [Remote]
    var fetcher: CatalogFetcher

    /// The refresher of `remotes` (refused as not found when there are none) on `http`, with the
    /// client's retries and catalog deadline.
    init(_ settings: CorpusClient, remotes: [Remote], http: HTTPClient) throws {
        home = settings.home
        self.remotes = try RemoteRegistry.required(remotes)
        var fetcher = CatalogFetcher(home: home, client: http, retry: settings.retry)
        fetcher.deadline = settings.catalogDeadline
        self.fetcher = fetcher
    }

    /// Every remote's refresh, each a success or its refusal (one remote's failure does not stop the others).
    func refreshAll() async throws -> [CorpusClient.CatalogRefresh] {
        var out: [CorpusClient.CatalogRefresh] = []
        for remote in remotes {
            do {
                let pending = try await fetcher.fetch(remote)
                try pending.commit(home: home)
                out.append(.init(remote: remote, result: .success(pending.update), rootsPending: pending.rootsPending))
            } catch let e as SyncError {
                out.append(.init(remote: remote, result: .failure(e)))
            }
        }
        return out
    }

    /// Fetches and verifies every remote's catalog without persisting it. A refusal from any remote
    /// stops the operation; a network failure falls back to the last accepted, unexpired catalog,
    /// marked `unrefreshed` so that the caller says so.
    ///
    /// - Parameter wanted: corpus ids asked for beyond the installed ones (a tree with catalog
    ///   parts is read only where their entries live).
    func fetchAll(wanted: [WantedCorpus] = []) async throws -> PendingCatalogs {
        var out: [CatalogFetcher.Pending] = []
        var fetcher = fetcher
        // An id may be qualified by its remote ("remote/id"): the last segment is the corpus id.
        fetcher.wanted = Set(wanted.map { String($0.id.split(separator: "/").last ?? Substring($0.id)) })
        for remote in remotes {
            do {
                out.append(try await fetcher.fetch(remote))
            } catch let e as SyncError {
                guard e.category == .network, let accepted = try CatalogState(home: home).accepted(remote.name),
                      let expiry = accepted.catalog.expiryDate, expiry > Date() else { throw e }
                // Worked from, and said so: the caller reports it and a script sees exit 5, never "up to date".
                let fetched = CatalogState(home: home).fetched(remote.name)
                out.append(CatalogFetcher.Pending(remote: remote, update: .unchanged(accepted.catalog),
                                                  root: try TrustStore(home: home).currentRoot(for: remote),
                                                  links: [], accepted: nil, fetch: nil,
                                                  unrefreshed: UnrefreshedCatalog(remote: remote.name, error: e, catalogVersion: accepted.catalog.version,
                                                                                  signed: accepted.catalog.issued, fetched: fetched)))
            }
        }
        return PendingCatalogs(all: out)
    }

    /// What the accepted catalogs of `remotes` offer this client, without network.
    static func offered(home: HomeLayout, remotes: [Remote]) throws -> CatalogOffers {
        let state = CatalogState(home: home)
        var catalogs: [(remote: Remote, catalog: Catalog)] = []
        for remote in remotes {
            guard let accepted = try state.accepted(remote.name) else { continue }
            catalogs.append((remote, accepted.catalog))
        }
        return try CatalogOffers.select(catalogs, home: home)
    }
}

extension CorpusClient {
    /// The outcome of refreshing one remote's catalog.
    public struct CatalogRefresh: Sendable {
        public var remote: Remote
        public var result: Result<CatalogFetcher.Update, SyncError>
        /// True when the tree holds more root versions than one refresh walks
        /// (`RootChainWalk.perRefreshLimit`): the next refresh goes on from the last one walked.
        public var rootsPending = false
    }
}

/// The verified catalogs one install or sync works from, not yet written to the home folder.
struct PendingCatalogs: Sendable {
    let all: [CatalogFetcher.Pending]

    /// Every entry they list, with its remote, whatever its channel or rollout: a damaged install
    /// is fetched again at exactly its version from here.
    var listed: [OfferedCorpus] {
        all.flatMap { p in p.update.catalog.corpora.map { OfferedCorpus(remote: p.remote.name, entry: $0) } }
    }

    /// What they offer this client (`CatalogOffers.select`); `waitsForRollout` false for `install --now`.
    func offers(home: HomeLayout, waitsForRollout: Bool = true) throws -> CatalogOffers {
        try CatalogOffers.select(all.map { ($0.remote, $0.update.catalog) }, home: home, waitsForRollout: waitsForRollout)
    }

    /// The catalog keys of each remote's newest root: the keys its bundles, deltas and model
    /// artifacts must be signed by (a key the root revoked is not among them).
    var catalogKeys: [String: [PublicKey]] {
        Dictionary(all.map { ($0.remote.name, $0.root.catalogKeys) }, uniquingKeysWith: { a, _ in a })
    }

    /// The installed corpora of the refreshed remotes whose manifest signature is by a key their
    /// newest root does not list for the catalog role (`SyncPlanner.revoked`).
    func revokedInstalls(_ installed: [InstalledCorpusRecord], home: HomeLayout) -> Set<String> {
        let keys = catalogKeys
        var out = Set<String>()
        for have in installed {
            guard let trusted = keys[have.remote], let dir = home.currentVersionDirectory(remote: have.remote, id: have.id),
                  let signature = FileManager.default.contents(atPath: "\(dir)/\(BundleLayout.signature)"),
                  let signer = ThresholdSignatures.signer(of: signature) else { continue }
            if !trusted.contains(where: { $0.keyID == signer }) { out.insert(have.qualifiedName) }
        }
        return out
    }

    /// The embedder models each remote's catalog offers.
    var embedders: [String: [CatalogEmbedder]] {
        Dictionary(all.map { ($0.remote.name, $0.update.catalog.embedders ?? []) }, uniquingKeysWith: { a, _ in a })
    }

    var remoteNames: Set<String> { Set(all.map(\.remote.name)) }

    /// The catalogs used as accepted earlier because their refresh failed.
    var unrefreshed: [UnrefreshedCatalog] { all.compactMap(\.unrefreshed) }

    /// Writes each remote's accepted root links, catalog and conditional-request state.
    func commit(home: HomeLayout) throws {
        for p in all { try p.commit(home: home) }
    }
}
