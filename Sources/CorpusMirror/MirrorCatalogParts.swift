import Foundation
import CorpusFormat
import CorpusSync

/// The upstream's top document and catalog parts (docs/format.md "Catalog parts"), verified, with
/// only the parts the mirror does not hold yet: a run after one corpus changed fetches the
/// changed path, as a client does, and every part it keeps is checked against the signed top
/// document (through the node above it) before it is written; so is every listing part (through
/// the listing index).
struct MirrorCatalogParts: Sendable {
    var topPath: String
    var top: Data
    var signature: Data
    /// The top document's catalog with its entries read from the trie of parts, as a client
    /// assembles it (`CatalogFetcher.refreshByTop`): what a version without a flat catalog plans from.
    var catalog: Catalog
    /// Parts fetched from the upstream in this run, verified; the others were in the mirror.
    var fetched: [PartRef: Data]

    static func fetch(_ ref: TimestampDocument.TopRef, from upstream: MirrorUpstream, root: TrustedRoot, catalogID: String,
                      mirror: MirrorDirectory) async throws -> MirrorCatalogParts {
        let top = try await upstream.get(ref.path, cap: min(ref.size, CatalogFetcher.maxTopBytes))
        let digest = SHA256.digest(top)
        guard digest == ref.digest, Int64(top.count) == ref.size else { throw SyncError.hashMismatch(file: ref.path, expected: ref.digest.hex, actual: digest.hex) }
        guard let signature = try await upstream.optional(ref.path + TreeLayout.signatureSuffix, cap: CatalogFetcher.maxSignatureBytes) else {
            throw SyncError.signatureMissing(file: ref.path)
        }
        // Expiry and rollback are judged by the caller, on the flat catalog of this version or,
        // without one, on the catalog this returns.
        var catalog = try CatalogVerifier(now: .distantPast).verify(bytes: top, signature: signature, file: ref.path, root: root,
                                                                    expectedID: catalogID, accepted: nil).catalog
        guard let parts = catalog.parts else { throw SyncError.malformed(what: ref.path, reason: "a top document without parts") }
        var walk = CatalogPartWalk(parts: parts, ids: nil)
        var fetched: [PartRef: Data] = [:]
        while let next = walk.next {
            var stored = FileManager.default.contents(atPath: mirror.path(next.path))
            if stored.map({ SHA256.digest($0) != next.digest }) ?? true {
                stored = try await upstream.get(next.path, cap: min(next.size, CatalogPart.maxStoredBytes))
                fetched[next] = stored
            }
            do { try walk.provide(stored) } catch let e as FormatError { throw SyncError.from(e) }
        }
        // The listing parts `corpus catalog` reads, each checked against the index the top document names.
        if let listing = catalog.listing {
            func held(_ ref: PartRef) async throws -> Data {
                if let have = FileManager.default.contents(atPath: mirror.path(ref.path)), SHA256.digest(have) == ref.digest { return have }
                let stored = try await upstream.get(ref.path, cap: min(ref.size, CatalogPart.maxStoredBytes))
                fetched[ref] = stored
                return stored
            }
            do {
                for part in try ListingDocument.index(stored: try await held(listing.index), ref: listing.index) {
                    _ = try ListingDocument.rows(stored: try await held(part.part), ref: part)
                }
            } catch let e as FormatError { throw SyncError.from(e) }
        }
        catalog.corpora = walk.entries
        return MirrorCatalogParts(topPath: ref.path, top: top, signature: signature, catalog: catalog, fetched: fetched)
    }

    /// Writes the fetched parts, then the top document's signature and the document.
    func write(into mirror: MirrorDirectory) throws {
        for (ref, bytes) in fetched.sorted(by: { $0.key.digest.hex < $1.key.digest.hex }) { try mirror.write(bytes, to: ref.path) }
        try mirror.writeIfMissing(signature, to: topPath + TreeLayout.signatureSuffix)
        try mirror.writeIfMissing(top, to: topPath)
    }
}
