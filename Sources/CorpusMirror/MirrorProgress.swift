import CorpusFormat
import CorpusSync

/// Steps of a mirror run, for the CLI to draw (the library prints nothing).
public enum MirrorProgress: Sendable {
    /// The upstream's catalog verified; `previous` is the version the mirror held (nil when empty).
    case catalogVerified(id: String, version: Int, previous: Int?)
    /// An entitled corpus left out because no token was given.
    case skippedEntitled(corpus: String)
    /// A bundle the mirror already holds intact (size and SHA-256 checked), so not fetched.
    case present(corpus: String, path: String)
    case downloading(corpus: String, path: String, DownloadProgress)
    /// A bundle downloaded and verified (catalog hash and size, manifest signature).
    case downloaded(corpus: String, path: String, bytes: Int64)
    /// A bundle no unexpired catalog of the mirror references any more, deleted.
    case removed(path: String)
}

/// What a mirror run did.
public struct MirrorSummary: Sendable {
    /// The catalog the mirror now serves.
    public var catalog: Catalog
    /// The catalog version the mirror served before (nil for a new mirror).
    public var previousVersion: Int?
    /// Bundle and embedder artifact paths downloaded in this run, and their total size.
    public var fetched: [String]
    public var fetchedBytes: Int64
    /// Bundle and embedder artifact paths already present and intact.
    public var present: [String]
    /// Entitled corpora left out because no token was given.
    public var skippedEntitled: [String]
    /// Bundle and embedder artifact paths removed because no unexpired catalog references them.
    public var removed: [String]
    /// Catalog parts removed because none of the mirror's retained top documents names them (the
    /// publisher's rule, `PublishedTree.retainedTopVersions`, over the tops the mirror holds).
    public var partsRemoved: [String] = []

    /// True when the mirror already served this very catalog.
    public var catalogUnchanged: Bool { previousVersion == catalog.version }
}
