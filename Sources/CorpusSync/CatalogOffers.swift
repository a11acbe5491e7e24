import CorpusFormat
import Foundation

/// What a client's catalogs offer it: the chosen entry of each corpus, and those held back.
public struct CatalogOffers: Sendable {
    public var offered: [OfferedCorpus] = []
    public var heldBack: [OfferedCorpus] = []

    /// The offers of each `(remote, catalog)`, the one place channels and rollouts are applied for
    /// both the catalog views and install/sync. The install id is read, or made, only when a
    /// catalog holds a rollout.
    static func select(_ catalogs: [(remote: Remote, catalog: Catalog)], home: HomeLayout, now: Date = Date(),
                       waitsForRollout: Bool = true) throws -> CatalogOffers {
        let needsID = catalogs.contains { $0.catalog.corpora.contains { $0.rollout != nil } }
        let installID = needsID ? try InstallID.readOrCreate(home) : nil
        var out = CatalogOffers()
        for (remote, catalog) in catalogs {
            let choice = ChannelSelection(channel: remote.channel, installID: installID, now: now, waitsForRollout: waitsForRollout)
                .choose(catalog.corpora)
            out.offered += choice.offered.map { OfferedCorpus(remote: remote.name, entry: $0) }
            out.heldBack += choice.heldBack.map { OfferedCorpus(remote: remote.name, entry: $0) }
        }
        return out
    }
}
