import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync

/// What `catalog` and `show` list: the offers of every catalog, refreshed, with this home's state.
extension ClientCommand {
    /// Refreshes catalogs; a refusal stops the command, a network failure falls back to what was accepted.
    func refreshedOffers() async throws -> [OfferedCorpus] {
        for r in try await client.refreshCatalogs() {
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

    func catalogRows(_ offers: [OfferedCorpus]) throws -> [[String: Any]] {
        let installed = client.installed()
        let catalogIDs = try catalogIDsByRemote()
        return offers.map { o in
            let have = installed.first { $0.record.remote == o.remote && $0.record.id == o.entry.id }
            var row: [String: Any] = [
                "id": o.entry.id, "version": o.entry.version.description, "title": o.entry.title,
                "description": o.entry.description, "size": o.entry.bundle.size, "access": o.entry.access.rawValue,
                "language": o.entry.language, "license": o.entry.license, "catalog": o.remote, "bundled": o.entry.bundled,
                "documents": o.entry.documents, "passages": o.entry.passages,
                "installed": have != nil, "locked": client.isLocked(o, catalogID: catalogIDs[o.remote]),
                "update_available": have.map { $0.record.version < o.entry.version } ?? false,
            ]
            if let tier = o.entry.tier { row["tier"] = tier }
            if let have { row["installed_version"] = have.record.version.description }
            return row
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
