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
    func refreshedOffers() async throws -> [OfferedCorpus] {
        for r in try await client.refreshCatalogs() {
            if let note = r.rootsPendingNote { console.err(note) }
            if case let .failure(e) = r.result {
                if e.category == .network, (try? CatalogState(home: home).accepted(r.remote.name)) != nil {
                    console.err("warning: \(r.remote.name): \(e.description); showing the catalog accepted earlier")
                    continue
                }
                throw e
            }
        }
        return try client.offered()
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
        id = o.entry.id
        version = o.entry.version.description
        title = o.entry.title
        description = o.entry.description
        size = o.entry.bundle.size
        access = o.entry.access.rawValue
        language = o.entry.language
        license = o.entry.license
        catalog = o.remote
        bundled = o.entry.bundled
        documents = o.entry.documents
        passages = o.entry.passages
        self.installed = installed != nil
        self.locked = locked
        updateAvailable = installed.map { $0 < o.entry.version } ?? false
        tier = o.entry.tier
        installedVersion = installed?.description
    }
}
