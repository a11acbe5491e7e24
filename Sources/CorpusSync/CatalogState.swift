import CorpusFormat
import Foundation

/// The catalog a remote's client accepted last, exactly as signed.
public struct AcceptedCatalog: Sendable {
    public var catalog: Catalog
    public var bytes: Data
    public var signature: Data
}

/// The freshness document a remote's client accepted last, exactly as signed.
public struct AcceptedTimestamp: Sendable {
    public var document: TimestampDocument
    public var bytes: Data
    public var signature: Data
}

/// The validators of the last pointer fetched, for a conditional GET (`state/<remote>/fetch.json`).
public struct FetchState: Codable, Sendable, Equatable {
    /// The pointer URL these validators belong to; they are sent only to that URL.
    public var url: String
    public var etag: String?
    public var lastModified: String?

    enum CodingKeys: String, CodingKey {
        case url, etag
        case lastModified = "last_modified"
    }
}

/// Reads and writes `HOME/state/<remote>/`: the accepted catalog and the pointer's validators.
public struct CatalogState: Sendable {
    public let home: HomeLayout

    public init(home: HomeLayout) { self.home = home }

    /// The highest catalog accepted for `remote`, or nil before the first fetch. Its bytes were
    /// verified before they were written; they are parsed, not re-verified, and a file that does
    /// not parse is a damaged local file (`localFileDamaged`), not a refusal of the publisher's.
    public func accepted(_ remote: String) throws -> AcceptedCatalog? {
        let path = home.acceptedCatalog(remote)
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        let sig = FileManager.default.contents(atPath: home.acceptedCatalogSignature(remote)) ?? Data()
        do {
            var catalog = try Catalog.decode(bytes)
            // A top document: its entries are those the cached parts hold (installed or asked for).
            if let parts = catalog.parts {
                catalog.corpora = try CatalogPartWalk.entries(of: parts, ids: nil) { cachedPart($0, remote: remote) }.entries
            }
            return AcceptedCatalog(catalog: catalog, bytes: bytes, signature: sig)
        } catch {
            throw SyncError.localFileDamaged(path: path, reason: "\(error)")
        }
    }

    /// When this home last fetched `remote`'s accepted catalog from the network (the file's time),
    /// nil when there is none: how old the catalog worked from offline or unrefreshed is.
    public func fetched(_ remote: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: home.acceptedCatalog(remote)))?[.modificationDate] as? Date
    }

    /// The freshness document accepted last, or nil before the first. Verified before it was
    /// written; a file that does not parse is a damaged local file.
    public func acceptedTimestamp(_ remote: String) throws -> AcceptedTimestamp? {
        let path = home.acceptedTimestamp(remote)
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        let sig = FileManager.default.contents(atPath: home.acceptedTimestampSignature(remote)) ?? Data()
        do {
            return AcceptedTimestamp(document: try TimestampDocument.decode(bytes), bytes: bytes, signature: sig)
        } catch {
            throw SyncError.localFileDamaged(path: path, reason: "\(error)")
        }
    }

    /// Persists an accepted freshness document: signature, then document, each atomically.
    public func persist(_ accepted: AcceptedTimestamp, remote: String) throws {
        try FileIO.createDirectory(home.state(remote))
        try FileIO.writeAtomically(accepted.signature, to: home.acceptedTimestampSignature(remote))
        try FileIO.writeAtomically(accepted.bytes, to: home.acceptedTimestamp(remote))
    }

    /// The pointer's validators, or nil. A garbled `fetch.json` counts as absent: it only makes the
    /// next request conditional, and the next accepted fetch writes it anew.
    public func fetchState(_ remote: String) -> FetchState? {
        guard let data = FileManager.default.contents(atPath: home.fetchState(remote)) else { return nil }
        return try? JSONDecoder().decode(FetchState.self, from: data)
    }

    /// Persists an accepted catalog: signature, then catalog, each atomically. A crash in between
    /// leaves the previous catalog in place, which keeps its (lower) rollback floor.
    public func persist(_ accepted: AcceptedCatalog, remote: String) throws {
        try FileIO.createDirectory(home.state(remote))
        try FileIO.writeAtomically(accepted.signature, to: home.acceptedCatalogSignature(remote))
        try FileIO.writeAtomically(accepted.bytes, to: home.acceptedCatalog(remote))
    }

    /// The stored bytes of a catalog part read for `remote` earlier, nil when not held. They are
    /// checked against `ref` by whoever reads them (`CatalogPartWalk`), like bytes from the network.
    public func cachedPart(_ ref: PartRef, remote: String) -> Data? {
        FileManager.default.contents(atPath: "\(home.acceptedParts(remote))/\(ref.digest.hex).json.gz")
    }

    /// Keeps catalog parts read for `remote`, each atomically, before the top document naming them.
    public func persist(parts: [PartRef: Data], remote: String) throws {
        try FileIO.createDirectory(home.acceptedParts(remote))
        for (ref, bytes) in parts { try FileIO.writeAtomically(bytes, to: "\(home.acceptedParts(remote))/\(ref.digest.hex).json.gz") }
    }

    /// Removes the cached parts the accepted top document no longer reaches.
    func pruneParts(remote: String) {
        guard let accepted = try? accepted(remote), let parts = accepted.catalog.parts,
              let walk = try? CatalogPartWalk.entries(of: parts, ids: nil, source: { cachedPart($0, remote: remote) }) else { return }
        let keep = Set(walk.read.map { "\($0.ref.digest.hex).json.gz" })
        let folder = home.acceptedParts(remote)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !keep.contains(name) {
            FileIO.remove("\(folder)/\(name)")
        }
    }

    public func persist(_ fetch: FetchState, remote: String) throws {
        try FileIO.createDirectory(home.state(remote))
        try FileIO.writeAtomically(try CanonicalJSON.encode(fetch), to: home.fetchState(remote))
    }
}
