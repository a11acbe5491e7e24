import CorpusFormat
import Foundation

/// Which of a catalog's entries a client is offered: one version per corpus, chosen from the
/// channels the client follows and the rollouts its buckets have reached.
///
/// A client follows `stable` and, when its remote names another channel, that one too; of the
/// entries on those channels it keeps the ones it may have now (no rollout, a rollout that has
/// reached its bucket, or any rollout when the user asked for it with `--now`) and is offered the
/// newest of them. Filtering before picking is what keeps a held-back version from hiding an older
/// allowed one (Sparkle#1384). The entries it may not have yet are returned too: `install ID@VERSION`
/// names one of them on purpose, which is not waiting.
public struct ChannelSelection: Sendable {
    /// The channel the remote follows besides `stable`.
    public var channel: String
    /// The home's install id (`InstallID`); nil only when no entry carries a rollout.
    public var installID: String?
    public var now: Date
    /// False for `install --now`: a rollout does not hold this install back.
    public var waitsForRollout: Bool

    public init(channel: String?, installID: String?, now: Date, waitsForRollout: Bool = true) {
        self.channel = channel ?? ChannelRules.defaultChannel
        self.installID = installID
        self.now = now
        self.waitsForRollout = waitsForRollout
    }

    /// The selection's result for one catalog.
    public struct Choice: Sendable, Equatable {
        /// One entry per corpus id, in catalog order.
        public var offered: [CatalogEntry]
        /// Entries on a followed channel whose rollout has not reached this client.
        public var heldBack: [CatalogEntry]
    }

    public func follows(_ entry: some ChannelCandidate) -> Bool {
        entry.channelName == ChannelRules.defaultChannel || entry.channelName == channel
    }

    /// True when this client may have `entry` now.
    public func allows(_ entry: some ChannelCandidate) -> Bool {
        guard let rollout = entry.rollout, waitsForRollout else { return true }
        guard let installID else { return false }
        return rollout.offers(bucket: RolloutBucket(installID: installID, corpusID: entry.id).value, at: now)
    }

    public func choose(_ entries: [CatalogEntry]) -> Choice {
        let (offered, heldBack) = pick(entries)
        return Choice(offered: offered, heldBack: heldBack)
    }

    /// The offered entry of each id in order of first appearance, and the held-back ones: `choose`
    /// for catalog entries and for listing rows alike.
    public func pick<E: ChannelCandidate>(_ entries: [E]) -> (offered: [E], heldBack: [E]) {
        var best: [String: E] = [:]
        var order: [String] = []
        var heldBack: [E] = []
        for e in entries where follows(e) {
            guard allows(e) else { heldBack.append(e); continue }
            if let have = best[e.id] {
                if e.version > have.version { best[e.id] = e }
            } else {
                best[e.id] = e
                order.append(e.id)
            }
        }
        return (order.map { best[$0]! }, heldBack)
    }
}

/// What picks the version a client is offered: a catalog entry, or a listing row of it.
public protocol ChannelCandidate {
    var id: String { get }
    var version: CorpusVersion { get }
    var channelName: String { get }
    var rollout: Rollout? { get }
}

extension CatalogEntry: ChannelCandidate {}
extension ListingRow: ChannelCandidate {}

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
