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
    /// The home's install id (`InstallID` in CorpusSync); nil when no entry carries a rollout, or
    /// for the view of a client without one (`stableCurrent`), which no rollout reaches.
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

    /// What a client following only `stable`, with no rollout bucket, is offered: each corpus's
    /// stable current version, never a beta one or one still rolling out. What the publisher's
    /// OPDS feeds list, decided by the same rule as every client's offers.
    public static func stableCurrent(_ entries: [CatalogEntry]) -> [CatalogEntry] {
        // No install id: `allows` holds back every entry with a rollout, whatever the time.
        ChannelSelection(channel: nil, installID: nil, now: Date()).choose(entries).offered
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

/// What picks the version a client is offered: a catalog entry, a listing row of it, or an entry
/// as the channel rules check it.
public protocol ChannelCandidate {
    var id: String { get }
    var version: CorpusVersion { get }
    /// The channel named; absent means `stable`.
    var channel: String? { get }
    var rollout: Rollout? { get }
}

extension ChannelCandidate {
    /// `channel`, or `stable` when none is named: the one default for every kind of entry.
    public var channelName: String { channel ?? ChannelRules.defaultChannel }
}

extension CatalogEntry: ChannelCandidate {}
extension ListingRow: ChannelCandidate {}
extension ChannelRules.Listing: ChannelCandidate {}
