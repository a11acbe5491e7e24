import CorpusFormat
import Foundation

/// One corpus a catalog offers this client, as `corpus catalog` lists it.
public struct ListedCorpus: Sendable {
    public var remote: String
    public var row: ListingRow
}

extension CorpusClient {
    /// Hands `body` each corpus the accepted catalogs offer this client (its channels, its rollout
    /// buckets), remote by remote, each in catalog order, until `body` returns false. Without network.
    ///
    /// A catalog whose listing this home holds whole is read one listing part at a time, each
    /// checked against the index the signed top document names, so a listing is never in memory
    /// whole; entries of one id share a part (`ListingPartition`), so each part is picked from
    /// alone. Any other catalog (flat, a top document without a listing, or a listing not fetched
    /// in full) lists the entries this home holds, as `offered()` does.
    public func forEachOffered(_ body: (ListedCorpus) throws -> Bool) throws {
        let state = CatalogState(home: home)
        for remote in try config().remotes {
            guard let accepted = try state.accepted(remote.name) else { continue }
            let cache = ListingCache(home: home, remote: remote.name)
            guard let listing = accepted.catalog.listing, let parts = cache.complete(listing) else {
                for offer in try CatalogOffers.select([(remote, accepted.catalog)], home: home).offered {
                    guard try body(ListedCorpus(remote: remote.name, row: ListingRow(offer.entry))) else { return }
                }
                continue
            }
            var selection = ChannelSelection(channel: remote.channel, installID: nil, now: Date())
            for part in parts {
                let rows: [ListingRow]
                do {
                    guard let stored = cache.stored(part.part) else { throw SyncError.localFileDamaged(path: cache.path(part.part), reason: "it went missing") }
                    rows = try ListingDocument.rows(stored: stored, ref: part)
                } catch let e as FormatError {
                    throw SyncError.from(e)
                }
                // The install id is read, or made, only when a row holds a rollout (as `CatalogOffers.select`).
                if selection.installID == nil, rows.contains(where: { $0.rollout != nil }) { selection.installID = try InstallID.readOrCreate(home) }
                for row in selection.pick(rows).offered {
                    guard try body(ListedCorpus(remote: remote.name, row: row)) else { return }
                }
            }
        }
    }
}
