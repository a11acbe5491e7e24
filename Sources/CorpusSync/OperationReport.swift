import CorpusFormat
import Foundation

/// What an install or sync did: one outcome per corpus, in the order of the plan, and every
/// catalog it could not refresh and worked from as accepted earlier.
///
/// It is the collection of its outcomes, so a caller that only wants those iterates it; a caller
/// that reports success must also look at `unrefreshed`: an outcome `unchanged` under a catalog
/// that could not be refreshed means "not checked", never "up to date".
public struct OperationReport: RandomAccessCollection, Sendable {
    public let outcomes: [CorpusClient.Outcome]
    public let unrefreshed: [UnrefreshedCatalog]
    /// Installed corpora newer than what their channels now offer, kept as they are (never
    /// downgraded silently: the caller says so).
    public let keptNewer: [KeptNewerVersion]

    public init(outcomes: [CorpusClient.Outcome], unrefreshed: [UnrefreshedCatalog], keptNewer: [KeptNewerVersion] = []) {
        self.outcomes = outcomes
        self.unrefreshed = unrefreshed
        self.keptNewer = keptNewer
    }

    public var startIndex: Int { outcomes.startIndex }
    public var endIndex: Int { outcomes.endIndex }
    public subscript(position: Int) -> CorpusClient.Outcome { outcomes[position] }

    /// True when `outcome` was decided from a catalog that could not be refreshed.
    public func isUnchecked(_ outcome: CorpusClient.Outcome) -> Bool {
        guard let remote = outcome.name.split(separator: "/", maxSplits: 1).first else { return false }
        return unrefreshed.contains { $0.remote == remote }
    }
}

/// A remote whose catalog could not be refreshed (every source unreachable), so an install or sync
/// used the catalog this home accepted earlier, still within its expiry.
public struct UnrefreshedCatalog: Sendable, Equatable {
    public let remote: String
    /// Why the refresh failed (a network error after every source and retry).
    public let error: SyncError
    public let catalogVersion: Int
    /// When the publisher signed the catalog used (its `issued` timestamp).
    public let signed: String
    /// When this home last fetched that catalog from the network (the accepted file's time), if known.
    public let fetched: Date?

    public init(remote: String, error: SyncError, catalogVersion: Int, signed: String, fetched: Date?) {
        self.remote = remote
        self.error = error
        self.catalogVersion = catalogVersion
        self.signed = signed
        self.fetched = fetched
    }
}

/// An installed version newer than the one its remote's channels offer (after leaving a channel,
/// or after a rollout was halted): kept, and said.
public struct KeptNewerVersion: Sendable, Equatable {
    /// `remote/id`.
    public let name: String
    public let installed: CorpusVersion
    public let offered: CorpusVersion
    /// The channel the offered version is on.
    public let channel: String

    public init(name: String, installed: CorpusVersion, offered: CorpusVersion, channel: String) {
        self.name = name
        self.installed = installed
        self.offered = offered
        self.channel = channel
    }
}
