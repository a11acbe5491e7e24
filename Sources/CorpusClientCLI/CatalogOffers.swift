import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync

extension CorpusClient.CatalogRefresh {
    /// The line `catalog`, `show` and `status` print when the walk stopped at its bound.
    var rootsPendingNote: String? {
        guard rootsPending else { return nil }
        return "note: \(remote.name): the catalog's tree has more root versions than one refresh walks (\(RootChainWalk.perRefreshLimit)); run the command again to go on"
    }
}

/// What `catalog` and `show` list: the offers of every catalog, refreshed, with this home's state.
extension ClientCommand {
    /// Refreshes catalogs; a refusal stops the command, a network failure falls back to what was accepted.
    /// In offline mode nothing is sent and each catalog's age is said.
    ///
    /// - Parameter wanted: the ids whose entries matter (`show ID`); nil: every entry.
    func refreshedOffers(wanted: Set<String>? = nil) async throws -> [OfferedCorpus] {
        try await refreshCatalogsOrSay(wanted: wanted)
        return try client.offered()
    }

    /// The refresh `refreshedOffers` makes, saying what it falls back to; `browsing` for `catalog`
    /// (`CorpusClient.refreshCatalogs(browsing:)`).
    func refreshCatalogsOrSay(browsing: Bool = false, wanted: Set<String>? = nil) async throws {
        for r in try await client.refreshCatalogs(browsing: browsing, wanted: wanted) {
            if let note = r.rootsPendingNote { console.err(note) }
            if case let .failure(e) = r.result {
                if case .offline = e {
                    console.err("offline: \(cachedCatalogLine(r.remote.name) ?? "no catalog of \(r.remote.name) is held yet (run corpus catalog without --offline once)")")
                    continue
                }
                if e.category == .network, (try? CatalogState(home: home).accepted(r.remote.name)) != nil {
                    console.err("warning: \(r.remote.name): \(e.description); working from cached data: \(cachedCatalogLine(r.remote.name) ?? "")")
                    continue
                }
                throw e
            }
        }
    }

    /// `catalog NAME version V, fetched 2 h 5 min ago (signed T)`: how old the catalog this home
    /// holds for `remote` is; nil when it holds none.
    func cachedCatalogLine(_ remote: String) -> String? {
        guard let accepted = try? CatalogState(home: home).accepted(remote) else { return nil }
        let fetched = CatalogState(home: home).fetched(remote)
        let age = fetched.map { "fetched \(Self.age(Date().timeIntervalSince($0))) ago" } ?? "fetched at an unknown time"
        return "catalog \(remote) version \(accepted.catalog.version), \(age) (signed \(accepted.catalog.issued), expires \(accepted.catalog.expires))"
    }

    /// `45 s`, `12 min`, `3 h 20 min`, `2 d 4 h`.
    static func age(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        if s < 86400 { return "\(s / 3600) h \(s % 3600 / 60) min" }
        return "\(s / 86400) d \(s % 86400 / 3600) h"
    }

    func catalogRows(_ offers: [OfferedCorpus]) throws -> [CatalogRow] {
        let installed = client.installed()
        let catalogIDs = try catalogIDsByRemote()
        return offers.map { o in
            let have = installed.first { $0.record.remote == o.remote && $0.record.id == o.entry.id }
            return CatalogRow(o, installed: have?.record.version, locked: client.isLocked(o, catalogID: catalogIDs[o.remote]))
        }
    }

    func catalogIDsByRemote() throws -> [String: String] {
        var out: [String: String] = [:]
        for r in try client.config().remotes {
            if let c = try CatalogState(home: home).accepted(r.name) { out[r.name] = c.catalog.id }
        }
        return out
    }
}

/// One offered corpus as `catalog --json` and `show --json` print it (docs/cli.md).
struct CatalogRow: Encodable, Sendable {
    let id: String
    let version: String
    let title: String
    let description: String
    let size: Int64
    let access: String
    let language: String
    let license: String
    let catalog: String
    let bundled: Bool
    let documents: Int
    let passages: Int
    let installed: Bool
    let locked: Bool
    let updateAvailable: Bool
    /// Left out when the corpus has no tier, or is not installed.
    let tier: String?
    let installedVersion: String?

    enum CodingKeys: String, CodingKey {
        case id, version, title, description, size, access, language, license, catalog, bundled, documents, passages
        case installed, locked, tier
        case updateAvailable = "update_available"
        case installedVersion = "installed_version"
    }

    /// `installed`: the version of it this home has, if any.
    init(_ o: OfferedCorpus, installed: CorpusVersion?, locked: Bool) {
        self.init(remote: o.remote, ListingRow(o.entry), installed: installed, locked: locked)
    }

    init(remote: String, _ r: ListingRow, installed: CorpusVersion?, locked: Bool) {
        id = r.id
        version = r.version.description
        title = r.title
        description = r.description
        size = r.size
        access = r.access.rawValue
        language = r.language
        license = r.license
        catalog = remote
        bundled = r.bundled
        documents = r.documents
        passages = r.passages
        self.installed = installed != nil
        self.locked = locked
        updateAvailable = installed.map { $0 < r.version } ?? false
        tier = r.tier
        installedVersion = installed?.description
    }
}
