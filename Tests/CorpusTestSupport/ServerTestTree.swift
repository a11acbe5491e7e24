import Foundation
import CorpusFormat

/// A published tree built by hand for server tests: a signed catalog with free and entitled
/// corpora, fake bundles named by their hash (the server never opens them), root keys and an
/// index page. Everything a real `corpusd publish` writes, without needing the publisher.
public final class ServerTestTree: @unchecked Sendable {
    public let dir: TempDirectory
    public var root: String { dir.path }
    public let catalogID: String
    /// Signs the catalog (the publisher's root key).
    public let rootKey: SecretKey
    /// Signs entitlement tokens; its public half is what the server pins.
    public let entitlementKey: SecretKey
    public private(set) var catalog: Catalog
    /// Bundle file path (relative to the root) by corpus id.
    public private(set) var bundlePaths: [String: String] = [:]
    /// Bundle bytes by corpus id.
    public private(set) var bundleBytes: [String: Data] = [:]

    /// Corpus shapes: id, access, tier, bundle size.
    public struct Spec: Sendable {
        public let id: String
        public let access: Access
        public let tier: String?
        public let size: Int
        public init(_ id: String, _ access: Access, tier: String? = nil, size: Int = 4096) {
            self.id = id
            self.access = access
            self.tier = tier
            self.size = size
        }
    }

    public static let defaultSpecs: [Spec] = [
        Spec("free-guide", .free, size: 10_000),
        Spec("paid-atlas", .entitled, tier: "gold", size: 20_000),
        Spec("paid-notes", .entitled, tier: "silver", size: 3_000),
    ]

    public init(catalogID: String = "demo", specs: [Spec] = ServerTestTree.defaultSpecs) throws {
        dir = TempDirectory("server-tree")
        self.catalogID = catalogID
        rootKey = try SecretKey.generate()
        entitlementKey = try SecretKey.generate()
        catalog = Catalog(id: catalogID, title: "Demo", version: 1, issued: Date(), expires: Date().addingTimeInterval(86400 * 30),
                          rootVersion: 1, corpora: [])
        var entries: [CatalogEntry] = []
        for spec in specs { entries.append(try addBundle(spec)) }
        catalog.corpora = entries
        try writeCatalog(catalog)
        let rootDoc = RootKeyDocument(version: 1, key: rootKey.publicKey, created: Date())
        let rootBytes = try CanonicalJSON.encode(rootDoc)
        try dir.write("keys/root-1.json", rootBytes)
        try dir.write("keys/root-1.json.minisig", try rootKey.sign(rootBytes, trustedComment: "root:1").fileText)
        try dir.write("keys/root.pub", rootKey.publicKey.fileText)
        try dir.write("index.html", "<!doctype html><title>Demo</title><h1>Demo catalog</h1>\n")
    }

    /// Writes a fake bundle (deterministic pseudo-random bytes) and returns its catalog entry.
    public func addBundle(_ spec: Spec) throws -> CatalogEntry {
        var bytes = [UInt8](repeating: 0, count: spec.size)
        var x = spec.id.utf8.reduce(UInt64(14695981039346656037)) { ($0 ^ UInt64($1)) &* 1099511628211 } | 1
        for i in bytes.indices {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            bytes[i] = UInt8(truncatingIfNeeded: x)
        }
        let data = Data(bytes)
        let sha = SHA256.digest(data)
        let path = TreeLayout.bundlePath(sha256: sha.hex)
        try dir.write(path, data)
        bundlePaths[spec.id] = path
        bundleBytes[spec.id] = data
        return CatalogEntry(id: spec.id, version: CorpusVersion("1")!, title: spec.id, description: "test corpus \(spec.id)",
                            language: "en", license: "CC0-1.0", access: spec.access, tier: spec.tier, bundled: false,
                            bundle: BundleRef(path: path, digest: sha, size: Int64(spec.size)), documents: 1, passages: 1,
                            embedder: EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8"),
                            content: SHA256Digest(hex: String(repeating: "0", count: 64))!)
    }

    /// Writes `catalogs/N.json` and its signature, then points `catalog.json` at it (last, as publish does).
    public func writeCatalog(_ c: Catalog) throws {
        let bytes = try c.canonicalBytes()
        let path = TreeLayout.catalogPath(version: c.version)
        try dir.write(path, bytes)
        try dir.write(path + TreeLayout.signatureSuffix, try rootKey.sign(bytes, trustedComment: c.trustedComment).fileText)
        let pointer = try CanonicalJSON.encode(CatalogPointer(id: c.id, version: c.version))
        try FileIO.writeAtomically(pointer, to: dir.url(TreeLayout.pointer))
        catalog = c
    }

    /// Publishes a new catalog version with `change` applied to the entries.
    public func republish(_ change: (inout [CatalogEntry]) -> Void) throws {
        var next = catalog
        next.version += 1
        change(&next.corpora)
        try writeCatalog(next)
    }

    /// Issues a token signed by the entitlement key (or `key`), for this catalog unless told otherwise.
    public func token(corpora: [String] = [], tiers: [String] = [], audience: String? = nil, lifetime: TimeInterval = 3600,
                      now: Date = Date(), key: SecretKey? = nil) throws -> String {
        try EntitlementToken.issue(key: key ?? entitlementKey, issuer: "test", subject: "user-1", audience: audience ?? catalogID,
                                   corpora: corpora, tiers: tiers, lifetime: lifetime, now: now).compact
    }

    /// The path of the entitlement public key written as a `.pub` file (for `--entitlement-pub`).
    public func entitlementPubFile() throws -> String {
        let keys = TempDirectory("server-keys")
        retained.append(keys)
        return try keys.write("entitlement.pub", entitlementKey.publicKey.fileText)
    }

    public func entitlementKeyFile() throws -> String {
        let keys = TempDirectory("server-keys")
        retained.append(keys)
        let path = try keys.write("entitlement.key", entitlementKey.fileText)
        chmod(path, 0o600)
        return path
    }

    private var retained: [TempDirectory] = []
}
