import CorpusFormat
import Foundation

/// The listing parts this home holds for a remote (`HOME/state/<remote>/listing/`, named as in the
/// tree): read by `corpus catalog` one part at a time, and fetched only where the listing changed.
/// Bytes read from here are checked against the signed top document's references by their
/// reader (`ListingDocument`), like bytes from the network.
public struct ListingCache: Sendable {
    public let home: HomeLayout
    public let remote: String

    public init(home: HomeLayout, remote: String) {
        self.home = home
        self.remote = remote
    }

    var folder: String { home.acceptedListing(remote) }

    func path(_ ref: PartRef) -> String { "\(folder)/\(ref.digest.hex).json.gz" }

    public func stored(_ ref: PartRef) -> Data? { FileManager.default.contents(atPath: path(ref)) }

    func holds(_ ref: PartRef) -> Bool { FileIO.fileSize(path(ref)) == ref.size }

    /// The listing parts of `listing` in order when this home holds its index and every part it
    /// names; nil otherwise (then `corpus catalog` needs the network, or lists the entries held).
    public func complete(_ listing: CatalogListing) -> [ListingPartRef]? {
        guard let stored = stored(listing.index), let parts = try? ListingDocument.index(stored: stored, ref: listing.index) else { return nil }
        return parts.allSatisfy { holds($0.part) } ? parts : nil
    }

    /// Removes the files `listing` does not name: kept after each refresh that fetched a listing,
    /// so the cache holds one listing, and parts a later listing shares are never fetched twice.
    func prune(keeping listing: CatalogListing) {
        guard let stored = stored(listing.index), let parts = try? ListingDocument.index(stored: stored, ref: listing.index) else { return }
        let keep = Set(([listing.index] + parts.map(\.part)).map { "\($0.digest.hex).json.gz" })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !keep.contains(name) {
            FileIO.remove("\(folder)/\(name)")
        }
    }
}

/// Listing parts fetched and checked in one refresh, kept under `HOME/staging/` until the refresh
/// is committed: on disk, not in memory, so a first listing of a large catalog costs one part of
/// memory at a time; and outside the cache, so a refusal anywhere in the refresh leaves the home as
/// it was. The folder goes with the last copy of the refresh that staged it (`deinit`), committed
/// or not.
final class StagedListing: Sendable {
    let folder: String
    /// `HOME/staging` when this refresh made it (a new home's first refresh): it goes too, if
    /// empty, so a refused first refresh leaves the home exactly as it was.
    private let madeStaging: String?

    init(home: HomeLayout) throws {
        // `<pid>.…`: the staging name `corpus gc` reads its owner from, so it is left alone while this process lives.
        folder = "\(home.staging)/\(getpid()).listing-\(UUID().uuidString.prefix(8).lowercased())"
        madeStaging = FileIO.exists(home.staging) ? nil : home.staging
        try FileIO.createDirectory(folder)
    }

    /// Written plainly, not fsynced: the folder is this refresh's alone, and a cached part is
    /// checked against its hash at every read, so one a crash cut short is fetched again rather
    /// than trusted. Two fsyncs a part were most of a first listing's time at 200 parts.
    func write(_ stored: Data, for ref: PartRef) throws {
        let path = "\(folder)/\(ref.digest.hex).json.gz"
        guard FileManager.default.createFile(atPath: path, contents: stored) else { throw SyncError.io(operation: "create", path: path, errno: errno) }
    }

    /// Moves every staged part into `cache`'s folder (one rename each: same file system).
    func commit(into cache: ListingCache) throws {
        try FileIO.createDirectory(cache.folder)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard rename("\(folder)/\(name)", "\(cache.folder)/\(name)") == 0 else {
                throw SyncError.io(operation: "rename", path: "\(cache.folder)/\(name)", errno: errno)
            }
        }
        FileIO.syncDirectory(cache.folder)
    }

    deinit {
        FileIO.remove(folder)
        // rmdir(2) removes only an empty folder: never what another refresh staged meanwhile.
        if let madeStaging { _ = rmdir(madeStaging) }
    }
}
