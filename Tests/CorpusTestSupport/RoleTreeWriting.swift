import Foundation
import CorpusFormat

/// Root documents with roles (format 2) and freshness documents written by hand into a
/// `StaticTreeFixture`, so client and mirror tests can stage every signature, threshold and
/// expiry case on real files, including the ones no publisher command would write.
extension StaticTreeFixture {
    /// The keys of one format-2 root: who holds each role, and the root threshold.
    public struct Roles {
        public var root: [SecretKey]
        public var rootThreshold: Int
        public var catalog: [SecretKey]
        public var timestamp: [SecretKey]

        public init(root: [SecretKey], rootThreshold: Int, catalog: [SecretKey], timestamp: [SecretKey]) {
            self.root = root
            self.rootThreshold = rootThreshold
            self.catalog = catalog
            self.timestamp = timestamp
        }

        /// Fresh keys: `n` root keys with threshold `k`, one catalog key and one timestamp key.
        public static func generate(rootKeys n: Int, threshold k: Int) throws -> Roles {
            Roles(root: try (0..<n).map { _ in try SecretKey.generate() }, rootThreshold: k,
                  catalog: [try SecretKey.generate()], timestamp: [try SecretKey.generate()])
        }
    }

    /// Writes `keys/root-<version>.json` in format 2 and one `.<KEYID>.minisig` file per signer
    /// (signers may include keys that do not count, on purpose). Returns the document's bytes.
    @discardableResult
    public func writeRoleRoot(version: Int, roles: Roles, signers: [SecretKey], expires: Date? = nil) throws -> Data {
        let doc = RootDocument(version: version, created: created, expires: expires ?? Date().addingTimeInterval(365 * 86400), roles: [
            .root: (roles.root.map(\.publicKey), roles.rootThreshold),
            .catalog: (roles.catalog.map(\.publicKey), 1),
            .timestamp: (roles.timestamp.map(\.publicKey), 1),
        ])
        let bytes = try CanonicalJSON.encode(doc)
        try directory.write(TreeLayout.rootKeyPath(version: version), bytes)
        for signer in signers { try signRoot(version: version, bytes: bytes, with: signer) }
        return bytes
    }

    /// Adds one holder's signature file to root `version`'s document.
    public func signRoot(version: Int, bytes: Data, with signer: SecretKey) throws {
        let sig = try signer.sign(bytes, trustedComment: RootDocument.trustedComment(version: version, signer: signer.keyID))
        try directory.write(TreeLayout.rootSignaturePath(version: version, signer: signer.keyID), sig.fileText)
    }

    /// Writes `timestamp.json` (+ `.minisig`) naming catalog `catalogVersion` as the tree holds it.
    @discardableResult
    public func writeTimestamp(version: Int, catalogVersion: Int, signer: SecretKey, expires: Date? = nil) throws -> Data {
        let path = TreeLayout.catalogPath(version: catalogVersion)
        let catalog = try Data(contentsOf: URL(fileURLWithPath: directory.url(path)))
        let doc = TimestampDocument(version: version, issued: created, expires: expires ?? Date().addingTimeInterval(86400),
                                    catalog: .init(id: catalogID, version: catalogVersion, path: path, digest: SHA256.digest(catalog),
                                                   size: Int64(catalog.count)))
        let bytes = try CanonicalJSON.encode(doc)
        try directory.write(TreeLayout.timestamp, bytes)
        try directory.write(TreeLayout.timestamp + TreeLayout.signatureSuffix, try signer.sign(bytes, trustedComment: doc.trustedComment).fileText)
        return bytes
    }
}
