import Foundation
import CorpusFormat
import CorpusSync

/// The signed metadata of an upstream tree, fetched and verified, nothing written yet.
struct VerifiedUpstream: Sendable {
    /// Every root key document from version 1, each verified by the one before (root 1 by itself).
    var roots: [VerifiedRootDocument]
    /// The newest root: the key that must sign the catalog and the bundles' manifests.
    var root: TrustedRoot { roots.last!.root }
    /// The flat catalog's, or for a version without one the top document's with its entries from the parts.
    var catalog: Catalog
    /// The flat catalog and its signature; nil for a version that has only its top document
    /// (over `Catalog.maxFlatBytes`: the timestamp names the top document as its catalog).
    var catalogBytes: Data?
    var catalogSignature: Data?
    /// The upstream's freshness document and its signature, verified, when it has one.
    var timestamp: (document: TimestampDocument, bytes: Data, signature: Data)?
    /// `index.html` as the upstream serves it (unsigned, a page for people), nil when it has none.
    var indexPage: Data?
    /// The top document and the catalog parts the mirror lacks, when the timestamp names a top document.
    var parts: MirrorCatalogParts? = nil
}

/// Fetches an upstream tree's metadata and verifies it against a pinned root key.
///
/// The same checks as the client's `CatalogFetcher`, with its pieces: the pointer's checks
/// (`CatalogFetcher.decodePointer`), the root-chain walk (`RootChainWalk`, here from root 1: the
/// mirror must serve the whole chain, since clients pinned at any version follow it forward), the
/// catalog's verdict (`CatalogVerifier`), and each small file asked with the client's retry loop
/// (`SourceFailover`, over the one upstream). The pinned key must be one of the chain's keys.
struct MirrorUpstream: Sendable {
    let source: Source
    let client: HTTPClient
    let retry: RetryPolicy
    let pinned: PublicKey

    static let maxIndexPageBytes: Int64 = 4 * 1024 * 1024
    /// The largest flat catalog read when a signed timestamp names its size (about 1.5 million
    /// one-book entries).
    static let maxNamedCatalogBytes: Int64 = 1 << 30

    func fetch(mirror: MirrorDirectory) async throws -> VerifiedUpstream {
        // 1. The pointer: a hint naming the signed catalog.
        var pointer = try CatalogFetcher.decodePointer(try await get(TreeLayout.pointer, cap: CatalogFetcher.maxPointerBytes))

        // 2. The whole root chain, each link verified by the one before.
        let roots = try await RootChainWalk.links(after: nil) { path, cap in try await optional(path, cap: cap) }
        guard let newest = roots.last else { throw SyncError.notFound(file: TreeLayout.rootKeyPath(version: 1)) }
        // The pin anchors the chain: it and every root after it are trusted; a chain without it is not ours.
        guard roots.contains(where: { $0.root.roles.keys(for: .root).contains(pinned) }) else {
            throw SyncError.untrustedKey(keyID: (newest.root.roles.keys(for: .root).first ?? pinned).keyID.description)
        }

        // 3. The freshness document, when the tree has one (a format-2 tree must): it, not the
        // pointer, names the catalog, as it does for clients.
        var timestamp: (document: TimestampDocument, bytes: Data, signature: Data)?
        if let bytes = try await optional(TreeLayout.timestamp, cap: CatalogFetcher.maxTimestampBytes) {
            guard let signature = try await optional(TreeLayout.timestamp + TreeLayout.signatureSuffix, cap: CatalogFetcher.maxSignatureBytes),
                  !signature.isEmpty else { throw SyncError.signatureMissing(file: TreeLayout.timestamp) }
            do {
                try newest.root.verifySignature(signature, of: bytes, file: TreeLayout.timestamp, role: .timestamp)
                let document = try TimestampDocument.decode(bytes)
                timestamp = (document, bytes, signature)
                pointer = CatalogPointer(id: document.catalog.id, version: document.catalog.version)
            } catch let e as FormatError {
                throw SyncError.from(e, file: TreeLayout.timestamp)
            }
        } else if newest.root.roles.format >= 2 {
            throw SyncError.timestampMissing(file: TreeLayout.timestamp)
        }

        // 4. A version too large for a flat catalog (docs/format.md "No flat catalog over the
        // clients' cap"): the timestamp names its top document as the catalog too. The catalog
        // planned from is the top document's, its entries read from the parts, each verified.
        if let stamp = timestamp?.document, let top = stamp.top, stamp.catalog.path == top.path {
            let parts = try await MirrorCatalogParts.fetch(top, from: self, root: newest.root, catalogID: pointer.id, mirror: mirror)
            try CatalogFetcher.check(parts.catalog, against: pointer)
            let index = try await optional("index.html", cap: Self.maxIndexPageBytes)
            return VerifiedUpstream(roots: roots, catalog: parts.catalog, timestamp: timestamp, indexPage: index, parts: parts)
        }

        // 5. The flat catalog and its signature, as bytes; a missing signature is a refusal.
        // A flat catalog the signed timestamp names by size is read up to that size: a 100,000-entry
        // one is about 69 MB, more than a client reads (it reads the parts), and the mirror must
        // still copy it for clients of earlier releases. Without a timestamp, a client's cap.
        let cap = timestamp.map { min($0.document.catalog.size, Self.maxNamedCatalogBytes) } ?? CatalogFetcher.maxCatalogBytes
        let catalogBytes = try await get(pointer.path, cap: cap)
        let signature = try await optional(pointer.path + TreeLayout.signatureSuffix, cap: CatalogFetcher.maxSignatureBytes)
        if let named = timestamp?.document.catalog {
            let digest = SHA256Digest(bytes: SHA256.hash(catalogBytes))
            guard digest == named.digest, Int64(catalogBytes.count) == named.size else {
                throw SyncError.hashMismatch(file: named.path, expected: named.digest.hex, actual: digest.hex)
            }
        }

        // 6. The catalog under the newest root. Expiry and rollback are judged by the caller against
        // the mirror's own state (distantPast: never expired here), in the client's order.
        let catalog = try CatalogVerifier(now: .distantPast).verify(bytes: catalogBytes, signature: signature, file: pointer.path,
                                                                    root: newest.root, expectedID: pointer.id, accepted: nil).catalog
        try CatalogFetcher.check(catalog, against: pointer)
        let index = try await optional("index.html", cap: Self.maxIndexPageBytes)
        return VerifiedUpstream(roots: roots, catalog: catalog, catalogBytes: catalogBytes, catalogSignature: signature!, timestamp: timestamp, indexPage: index)
    }

    /// GETs a small file, asked again on transient failures (`SourceFailover` over the upstream):
    /// `notFound` when the upstream has no such file, `sizeExceeded` past `cap`.
    func get(_ path: String, cap: Int64) async throws -> Data {
        let request = HTTPRequest(url: source.url(for: path), maxBodyBytes: cap)
        return try await SourceFailover(retry: retry).first(of: [source], file: path) { _ in
            do {
                return try await client.get(request).body
            } catch TransportError.tooLarge {
                throw SyncError.sizeExceeded(file: path, limit: cap)
            }
        }
    }

    /// `get`, with nil for a file the upstream does not have (a missing file is a state, not a failure).
    func optional(_ path: String, cap: Int64) async throws -> Data? {
        do {
            return try await get(path, cap: cap)
        } catch SyncError.notFound(let file) where file == path {
            return nil
        }
    }
}
