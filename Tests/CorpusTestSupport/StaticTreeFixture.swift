import Foundation
import CorpusFormat

/// A small published tree (docs/format.md, "Published tree") built by hand in a temp folder:
/// root key 1 (self-signed), a signed catalog, the pointer, and one bundle of known bytes.
///
/// Helpers re-publish with another key, an expiry in the past, an older version, a rotated
/// root, or no signature, so catalog and download tests stage each attack on real files.
/// The bundle need not be a real zip: transport and trust only look at its bytes.
public final class StaticTreeFixture: @unchecked Sendable {
    // @unchecked: a fixture is built and mutated by one test at a time.
    public let directory: TempDirectory
    public var root: String { directory.path }
    public let catalogID: String
    /// Root keys by version: `rootKeys[0]` is root-1.
    public private(set) var rootKeys: [SecretKey]
    public let bundle: Data
    public let bundleRef: BundleRef
    public let created = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01

    public init(catalogID: String = "test-catalog", bundleSize: Int = 300_000) throws {
        directory = TempDirectory("tree")
        self.catalogID = catalogID
        let key = try SecretKey.generate()
        rootKeys = [key]
        bundle = Self.bytes(count: bundleSize, seed: 7)
        let sha = SHA256.digest(bundle)
        bundleRef = BundleRef(path: TreeLayout.bundlePath(sha256: sha.hex), digest: sha, size: Int64(bundle.count))
        try directory.write(bundleRef.path, bundle)
        try writeRootDocument(version: 1, key: key.publicKey, signer: key)
        try directory.write("keys/root.pub", key.publicKey.fileText)
        try publish(version: 1)
    }

    /// The key a client pins (root-1).
    public var pinnedKey: PublicKey { rootKeys[0].publicKey }
    public var currentRootVersion: Int { rootKeys.count }

    /// Deterministic, incompressible-looking bytes.
    public static func bytes(count: Int, seed: UInt64) -> Data {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        var out = Data(capacity: count)
        for _ in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            out.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return out
    }

    /// A catalog entry for the fixture's bundle (or another reference and id).
    public func entry(id: String = "sea-guide", version: String = "1", bundle ref: BundleRef? = nil) -> CatalogEntry {
        CatalogEntry(id: id, version: CorpusVersion(version)!, title: "Sea guide", description: "Tides and knots", language: "en",
                     license: "CC-BY-4.0", access: .free, tier: nil, bundled: false, bundle: ref ?? bundleRef,
                     documents: 3, passages: 12, embedder: EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8"),
                     content: SHA256Digest(hex: String(repeating: "ab", count: 32))!)
    }

    /// Writes `catalogs/<version>.json` (+ `.minisig` unless `signed` is false) and, by default, points `catalog.json` at it.
    /// - Parameters:
    ///   - signer: defaults to the newest root key.
    ///   - rootVersion: the root version the catalog names; defaults to the newest.
    @discardableResult
    public func publish(version: Int, expires: Date? = nil, signer: SecretKey? = nil, rootVersion: Int? = nil,
                        corpora: [CatalogEntry]? = nil, signed: Bool = true, updatePointer: Bool = true) throws -> Data {
        let catalog = Catalog(id: catalogID, title: "Test catalog", version: version, issued: created,
                              expires: expires ?? Date().addingTimeInterval(30 * 86400), rootVersion: rootVersion ?? currentRootVersion,
                              corpora: corpora ?? [entry()])
        let bytes = try catalog.canonicalBytes()
        let path = TreeLayout.catalogPath(version: version)
        try directory.write(path, bytes)
        let sigPath = directory.url(path + TreeLayout.signatureSuffix)
        if signed {
            let sig = try (signer ?? rootKeys.last!).sign(bytes, trustedComment: catalog.trustedComment)
            try directory.write(path + TreeLayout.signatureSuffix, sig.fileText)
        } else {
            try? FileManager.default.removeItem(atPath: sigPath)
        }
        if updatePointer { try pointTo(version: version) }
        return bytes
    }

    /// Rewrites `catalog.json` to name catalog `version`.
    public func pointTo(version: Int) throws {
        try directory.write(TreeLayout.pointer, try CanonicalJSON.encode(CatalogPointer(id: catalogID, version: version)))
    }

    /// Adds root key version N+1, signed by root N, and returns its secret key.
    @discardableResult
    public func rotateRoot() throws -> SecretKey {
        let next = try SecretKey.generate()
        try writeRootDocument(version: rootKeys.count + 1, key: next.publicKey, signer: rootKeys.last!)
        rootKeys.append(next)
        try directory.write("keys/root.pub", next.publicKey.fileText)
        return next
    }

    /// Writes `keys/root-<version>.json` signed by `signer` (which a test may choose wrongly on purpose).
    public func writeRootDocument(version: Int, key: PublicKey, signer: SecretKey) throws {
        let doc = RootKeyDocument(version: version, key: key, created: created)
        let bytes = try CanonicalJSON.encode(doc)
        let path = TreeLayout.rootKeyPath(version: version)
        try directory.write(path, bytes)
        let sig = try signer.sign(bytes, trustedComment: "root:\(version) key:\(key.keyID)")
        try directory.write(path + TreeLayout.signatureSuffix, sig.fileText)
    }

    /// Stores other bytes under a content-addressed name and returns their reference.
    public func addBundle(_ data: Data) throws -> BundleRef {
        let sha = SHA256.digest(data)
        let ref = BundleRef(path: TreeLayout.bundlePath(sha256: sha.hex), digest: sha, size: Int64(data.count))
        try directory.write(ref.path, data)
        return ref
    }
}
