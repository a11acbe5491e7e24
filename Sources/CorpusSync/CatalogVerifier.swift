import CorpusFormat
import Foundation

/// The pure decision whether a fetched catalog may replace the accepted one. No I/O:
/// `CatalogFetcher` fetches, this decides, and only then anything is persisted.
///
/// Checks run in this order and the first failure is the refusal:
/// 1. a signature exists and is by a catalog key of the newest trusted root (`signatureMissing`,
///    `untrustedKey`, `signatureInvalid`);
/// 2. the signed bytes parse, ids and paths are safe (`malformed`), and the catalog names a root
///    version no newer than that root and the expected catalog id (`catalogMismatch`);
/// 3. its version is not below the highest accepted (`rollback`), nor the same version with other bytes (`catalogConflict`);
/// 4. it has not expired (`expired`).
public struct CatalogVerifier: Sendable {
    public var now: Date

    public init(now: Date = Date()) { self.now = now }

    public enum Verdict: Sendable {
        /// Newer than what was accepted (or the first catalog): persist it.
        case accept(Catalog)
        /// Byte-identical to the accepted catalog: nothing to persist.
        case unchanged(Catalog)

        public var catalog: Catalog {
            switch self {
            case let .accept(c), let .unchanged(c): return c
            }
        }
    }

    public func verify(bytes: Data, signature: Data?, file: String, root: TrustedRoot,
                       expectedID: String?, accepted: AcceptedCatalog?) throws -> Verdict {
        guard let signature, !signature.isEmpty else { throw SyncError.signatureMissing(file: file) }
        let catalog: Catalog
        do {
            try root.verify(signature, of: bytes, file: file, role: .catalog)
            catalog = try Catalog.decode(bytes)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
        // A catalog stays valid across a rotation that kept its key (a new root holder, say); one
        // naming a root the client has not reached is not.
        guard catalog.rootVersion <= root.version else {
            throw SyncError.catalogMismatch(reason: "it names root key version \(catalog.rootVersion), the trusted root is version \(root.version)")
        }
        if let expectedID, catalog.id != expectedID {
            throw SyncError.catalogMismatch(reason: "catalog id is \(catalog.id), expected \(expectedID)")
        }
        if let accepted {
            if catalog.id != accepted.catalog.id {
                throw SyncError.catalogMismatch(reason: "catalog id is \(catalog.id), this remote's catalog is \(accepted.catalog.id)")
            }
            if catalog.version < accepted.catalog.version {
                throw SyncError.rollback(from: accepted.catalog.version, to: catalog.version)
            }
            if catalog.version == accepted.catalog.version && bytes != accepted.bytes {
                throw SyncError.catalogConflict(version: catalog.version)
            }
        }
        if let expiry = catalog.expiryDate, expiry <= now {
            throw SyncError.expired(at: catalog.expires)
        }
        if let accepted, accepted.bytes == bytes { return .unchanged(catalog) }
        return .accept(catalog)
    }
}
