import Foundation
import CorpusFormat
import CorpusSync

/// The signed metadata of an upstream tree, fetched and verified, nothing written yet.
struct VerifiedUpstream: Sendable {
    /// Every root key document from version 1, each verified by the one before (root 1 by itself).
    var roots: [VerifiedRootDocument]
    /// The newest root: the key that must sign the catalog and the bundles' manifests.
    var root: TrustedRoot { roots.last!.root }
    var catalog: Catalog
    var catalogBytes: Data
    var catalogSignature: Data
    /// `index.html` as the upstream serves it (unsigned, a page for people), nil when it has none.
    var indexPage: Data?
}

/// Fetches an upstream tree's metadata and verifies it against a pinned root key.
///
/// The same checks as the client's `CatalogFetcher`, from the mirror's side: the mirror must serve
/// the whole root chain (clients pinned at any version follow it forward), so it fetches
/// `keys/root-1.json` onwards, verifies every link, and requires the pinned key to be one of the
/// chain's keys; then the catalog must verify under the newest root (`CatalogVerifier`). Small
/// files are retried on transient failures like downloads are.
struct MirrorUpstream: Sendable {
    let source: Source
    let client: HTTPClient
    let retry: RetryPolicy
    let pinned: PublicKey

    static let maxIndexPageBytes: Int64 = 4 * 1024 * 1024

    func fetch() async throws -> VerifiedUpstream {
        // 1. The pointer: a hint naming the signed catalog.
        let pointerBytes = try await get(TreeLayout.pointer, cap: CatalogFetcher.maxPointerBytes, optional: false)!
        let pointer: CatalogPointer
        do {
            pointer = try CanonicalJSON.decode(CatalogPointer.self, from: pointerBytes, what: TreeLayout.pointer)
            try Identifier.validate(pointer.id, what: "catalog id")
        } catch let e as FormatError {
            throw MirrorUpdater.syncError(e, file: TreeLayout.pointer)
        }
        guard TreePath.isSafe(pointer.path) else {
            throw SyncError.malformed(what: TreeLayout.pointer, reason: "unsafe catalog path \(pointer.path.debugDescription)")
        }

        // 2. The catalog and its signature, as bytes; a missing signature is a refusal.
        let catalogBytes = try await get(pointer.path, cap: CatalogFetcher.maxCatalogBytes, optional: false)!
        let signature = try await get(pointer.path + TreeLayout.signatureSuffix, cap: CatalogFetcher.maxSignatureBytes, optional: true)

        // 3. The whole root chain, each link verified by the one before.
        var roots: [VerifiedRootDocument] = []
        for version in 1...TrustStore.maxChainLength {
            let path = TreeLayout.rootKeyPath(version: version)
            guard let json = try await get(path, cap: CatalogFetcher.maxRootDocumentBytes, optional: true) else { break }
            guard let sig = try await get(path + TreeLayout.signatureSuffix, cap: CatalogFetcher.maxSignatureBytes, optional: true) else {
                throw SyncError.signatureMissing(file: path)
            }
            let previous: TrustedRoot
            if let last = roots.last {
                previous = last.root
            } else {
                // Root 1 signs itself: verify it with its own key, as "version 0".
                do {
                    let doc = try CanonicalJSON.decode(RootKeyDocument.self, from: json, what: path)
                    previous = TrustedRoot(version: 0, key: try doc.publicKey())
                } catch let e as FormatError {
                    throw MirrorUpdater.syncError(e, file: path)
                }
            }
            roots.append(try TrustStore.verifyLink(json: json, signature: sig, previous: previous, file: path))
        }
        guard let newest = roots.last else { throw SyncError.notFound(file: TreeLayout.rootKeyPath(version: 1)) }
        // The pin anchors the chain: it and every root after it are trusted; a chain without it is not ours.
        guard roots.contains(where: { $0.root.key == pinned }) else {
            throw SyncError.untrustedKey(keyID: newest.root.key.keyID.description)
        }

        // 4. The catalog under the newest root. Expiry and rollback are judged by the caller against
        // the mirror's own state (distantPast: never expired here), in the client's order.
        let catalog = try CatalogVerifier(now: .distantPast).verify(bytes: catalogBytes, signature: signature, file: pointer.path,
                                                                    root: newest.root, expectedID: pointer.id, accepted: nil).catalog
        guard catalog.version == pointer.version else {
            throw SyncError.catalogMismatch(reason: "\(pointer.path) holds version \(catalog.version), the pointer says \(pointer.version)")
        }
        let index = try await get("index.html", cap: Self.maxIndexPageBytes, optional: true)
        return VerifiedUpstream(roots: roots, catalog: catalog, catalogBytes: catalogBytes, catalogSignature: signature!, indexPage: index)
    }

    /// GETs a small file with retries on transient failures; nil for a 404 when `optional`.
    func get(_ path: String, cap: Int64, optional: Bool) async throws -> Data? {
        let url = source.url(for: path)
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try await client.get(CorpusSync.HTTPRequest(url: url, maxBodyBytes: cap)).body
            } catch let e as TransportError {
                switch e {
                case .cancelled: throw SyncError.cancelled
                case .httpStatus(code: 404):
                    if optional { return nil }
                    throw SyncError.notFound(file: path)
                case .tooLarge: throw SyncError.sizeExceeded(file: path, limit: cap)
                default:
                    guard e.isTransient, attempts < retry.attemptsPerSource else { throw SyncError.network(after: attempts, last: e) }
                    let seconds = retry.backoff(afterAttempt: attempts)
                    if seconds > 0 {
                        do { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) } catch { throw SyncError.cancelled }
                    }
                }
            }
        }
    }
}
