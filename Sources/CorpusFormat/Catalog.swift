import Foundation

/// Who may download a corpus.
public enum Access: String, Codable, Hashable, Sendable {
    case free
    case entitled
}

/// Where a bundle lives in the static tree, and what it must hash to.
public struct BundleRef: Codable, Hashable, Sendable {
    /// Relative to the tree root, e.g. `bundles/<sha256>.corpus.zip`.
    public var path: String
    /// The SHA-256 of the file. JSON `sha256`.
    public var digest: SHA256Digest
    public var size: Int64

    enum CodingKeys: String, CodingKey {
        case path, size
        case digest = "sha256"
    }

    public init(path: String, digest: SHA256Digest, size: Int64) {
        self.path = path
        self.digest = digest
        self.size = size
    }

    /// The reference to a content-addressed file: hashes `file` and names it `path(digest)`
    /// (`TreeLayout.bundlePath`, `TreeLayout.embedderPath`).
    public init(hashing file: String, path: (SHA256Digest) -> String) throws {
        let (digest, size) = try SHA256.digest(fileAt: file)
        self.init(path: path(digest), digest: digest, size: size)
    }

    /// True when `file` has this reference's size and SHA-256 (a published file still intact).
    public func matches(fileAt file: String) -> Bool {
        guard FileIO.fileSize(file) == size, let hash = try? SHA256.digest(fileAt: file) else { return false }
        return hash.digest == digest
    }
}

/// One corpus as a catalog offers it.
public struct CatalogEntry: Codable, Hashable, Sendable {
    public var id: String
    public var version: CorpusVersion
    public var title: String
    public var description: String
    public var language: String
    public var license: String
    public var access: Access
    /// The tier an entitlement must cover when `access` is `entitled`.
    public var tier: String?
    /// Bundled starter corpora never count against an import limit.
    public var bundled: Bool
    public var bundle: BundleRef
    public var documents: Int
    public var passages: Int
    public var embedder: EmbedderInfo
    /// The logical content digest of the version (`Manifest.content`). JSON `content_digest`.
    public var content: SHA256Digest
    /// Deltas from earlier versions to this one (docs/format.md "Delta"); absent when there are none.
    public var deltas: [DeltaRef]?
    /// The channel this version is on; absent means `stable` (`ChannelRules`).
    public var channel: String?
    /// Present on a version being offered to a growing share of clients (`Rollout`).
    public var rollout: Rollout?

    /// The bundle encrypted once as an age payload (`payloads/<sha256>.age`), which any mirror or
    /// cache may carry; its key comes from the catalog's `gate` (docs/format.md "Encrypted
    /// entitled corpora"). Absent for a bundle served in the clear.
    public var payload: BundleRef?

    enum CodingKeys: String, CodingKey {
        case id, version, title, description, language, license, access, tier, bundled, bundle, documents, passages, embedder, deltas, payload
        case channel, rollout
        case content = "content_digest"
    }

    public init(id: String, version: CorpusVersion, title: String, description: String, language: String, license: String,
                access: Access, tier: String?, bundled: Bool, bundle: BundleRef, documents: Int, passages: Int,
                embedder: EmbedderInfo, content: SHA256Digest) {
        self.id = id
        self.version = version
        self.title = title
        self.description = description
        self.language = language
        self.license = license
        self.access = access
        self.tier = tier
        self.bundled = bundled
        self.bundle = bundle
        self.documents = documents
        self.passages = passages
        self.embedder = embedder
        self.content = content
    }
}

extension CatalogEntry {
    /// What `ChannelRules` checks of this entry.
    public var listing: ChannelRules.Listing {
        ChannelRules.Listing(id: id, channel: channel, version: version, rollout: rollout, content: content)
    }
}

/// The signed catalog document (`catalogs/<version>.json` in a published tree).
public struct Catalog: Codable, Hashable, Sendable {
    public static let currentFormat = 1

    public var format: Int
    public var id: String
    public var title: String
    /// Increases by one with every publish; clients refuse a version below the highest they accepted.
    public var version: Int
    public var issued: String
    public var expires: String
    /// The root key version that signs this catalog (see `RootKeyDocument`).
    public var rootVersion: Int
    public var corpora: [CatalogEntry]
    /// Embedder model artifacts the corpora need (absent from catalogs without model-based corpora,
    /// so catalogs written before it existed still decode).
    public var embedders: [CatalogEmbedder]?
    /// Format 2 (a top document, `catalogs/<N>.top.json`) only: the trie of parts that holds the
    /// entries; `corpora` is then empty as signed, and a client fills it with the entries it read.
    public var parts: CatalogParts?
    /// Top documents only, when the publisher wrote one: the listing parts `corpus catalog` browses
    /// (docs/format.md "Listing parts"). Absent from top documents written before listings existed.
    public var listing: CatalogListing?

    /// The format of a top document: the catalog's fields without its entries, which live in parts.
    public static let topFormat = 2

    /// The largest flat catalog a client reads (`CatalogFetcher.maxCatalogBytes`, the same in
    /// every release since the first). A publisher does not write a flat catalog whose entries
    /// alone exceed it (about 48,000 one-book entries): no client could read it, and writing it
    /// would cost a republish the whole catalog's encoding (docs/format.md "Compatibility").
    public static let maxFlatBytes: Int64 = 32 * 1024 * 1024

    /// The base URL of the gate that releases the file keys of the catalog's encrypted payloads
    /// (`corpusd serve --key-store`), so a client that reached only a mirror still finds it.
    public var gate: String?

    enum CodingKeys: String, CodingKey {
        case format, id, title, version, issued, expires, corpora, embedders, parts, listing, gate
        case rootVersion = "root_version"
    }

    public init(id: String, title: String, version: Int, issued: Date, expires: Date, rootVersion: Int, corpora: [CatalogEntry],
                embedders: [CatalogEmbedder]? = nil) {
        self.format = Catalog.currentFormat
        self.id = id
        self.title = title
        self.version = version
        self.issued = Timestamp.format(issued)
        self.expires = Timestamp.format(expires)
        self.rootVersion = rootVersion
        self.corpora = corpora
        self.embedders = embedders
    }

    /// The artifact of the embedder model with this id and digest, if the catalog offers it.
    public func embedder(id: String, digest: SHA256Digest) -> CatalogEmbedder? {
        embedders?.first { $0.id == id && $0.digest == digest }
    }

    public var expiryDate: Date? { Timestamp.parse(expires) }

    public func canonicalBytes() throws -> Data { try CanonicalJSON.encode(self) }

    public static func decode(_ data: Data) throws -> Catalog {
        let c = try CanonicalJSON.decode(Catalog.self, from: data, what: "catalog")
        guard c.format == currentFormat || c.format == topFormat else {
            throw FormatError.unsupported(what: "catalog", reason: "format \(c.format); this build reads formats \(currentFormat) and \(topFormat)")
        }
        // A top document names its entries only through its parts; a flat catalog has no parts.
        guard (c.format == topFormat) == (c.parts != nil), c.format == currentFormat || c.corpora.isEmpty else {
            throw FormatError.malformed(what: "catalog", reason: "format \(c.format) with\(c.parts == nil ? "out" : "") parts and \(c.corpora.count) entries")
        }
        if let listing = c.listing, c.parts == nil || listing.count != c.parts?.count {
            throw FormatError.malformed(what: "catalog", reason: "a listing of \(listing.count) rows for \(c.parts?.count ?? 0) entries")
        }
        if let parts = c.parts, !CatalogParts.depthRange.contains(parts.depth) || parts.count < 0 {
            throw FormatError.malformed(what: "catalog", reason: "parts of depth \(parts.depth) and count \(parts.count)")
        }
        try Identifier.validate(c.id, what: "catalog id")
        guard c.version >= 1, c.rootVersion >= 1, c.expiryDate != nil, Timestamp.parse(c.issued) != nil else {
            throw FormatError.malformed(what: "catalog", reason: "version, root version or dates out of range")
        }
        for e in c.corpora {
            try Identifier.validate(e.id, what: "corpus id")
            guard TreePath.isSafe(e.bundle.path), e.bundle.size > 0 else {
                throw FormatError.malformed(what: "catalog", reason: "unsafe bundle reference for \(e.id)")
            }
            for d in e.deltas ?? [] {
                guard TreePath.isSafe(d.file.path), d.file.size > 0, d.fromVersion != e.version else {
                    throw FormatError.malformed(what: "catalog", reason: "unsafe delta reference for \(e.id)")
                }
                try d.payload.map { try EncryptedPayload.validate($0, of: "a delta of \(e.id)") }
            }
            if let payload = e.payload {
                try EncryptedPayload.validate(payload, of: e.id)
                guard c.gate != nil else { throw FormatError.malformed(what: "catalog", reason: "\(e.id) is encrypted but the catalog names no gate") }
            }
        }
        // Several entries per id only as channels and rollouts allow; anything else is refused whole.
        if let problem = ChannelRules.problem(c.corpora.map(\.listing)) { throw FormatError.malformed(what: "catalog", reason: problem) }
        try c.gate.map { try EncryptedPayload.validateGate($0) }
        for e in c.embedders ?? [] { try e.validate() }
        return c
    }

    public var trustedComment: String { "\(format == Self.topFormat ? "top" : "catalog"):\(id) version:\(version) expires:\(expires)" }

    /// The top document of this catalog: the same fields, the entries replaced by `parts`. Its
    /// canonical bytes are the one document signed per catalog version for clients that read parts.
    public func topDocument(parts: CatalogParts, listing: CatalogListing? = nil) -> Catalog {
        var top = self
        top.format = Self.topFormat
        top.corpora = []
        top.parts = parts
        top.listing = listing
        return top
    }
}

/// The one mutable file of a published tree (`catalog.json`): it names the current signed catalog.
/// It is a hint only; the client verifies what it points at.
public struct CatalogPointer: Codable, Hashable, Sendable {
    public var format: Int
    public var id: String
    public var version: Int
    /// Relative path of the signed catalog; its signature is the same path plus `.minisig`.
    public var path: String

    /// `path` is the flat catalog's, `catalogs/<version>.json`, unless the version has none (a
    /// catalog too large for one document: then its top document's).
    public init(id: String, version: Int, path: String? = nil) {
        self.format = 1
        self.id = id
        self.version = version
        self.path = path ?? TreeLayout.catalogPath(version: version)
    }
}

/// A root key version: version N's document is signed by version N−1's key (version 1 by itself).
public struct RootKeyDocument: Codable, Hashable, Sendable {
    public var format: Int
    public var version: Int
    /// The public key, as the bare base64 line of a minisign `.pub` file.
    public var key: String
    public var keyID: String
    public var created: String

    enum CodingKeys: String, CodingKey {
        case format, version, key, created
        case keyID = "key_id"
    }

    public init(version: Int, key: PublicKey, created: Date) {
        self.format = 1
        self.version = version
        self.key = key.base64
        self.keyID = key.keyID.description
        self.created = Timestamp.format(created)
    }

    public func publicKey() throws -> PublicKey { try PublicKey(base64Line: Substring(key)) }
}

/// File names inside a published tree.
public enum TreeLayout {
    public static let pointer = "catalog.json"
    public static func catalogPath(version: Int) -> String { "catalogs/\(version).json" }
    public static func rootKeyPath(version: Int) -> String { "keys/root-\(version).json" }
    /// One holder's signature of a format-2 root document: `keys/root-<N>.json.<KEYID>.minisig`.
    public static func rootSignaturePath(version: Int, signer: KeyID) -> String { "\(rootKeyPath(version: version)).\(signer)\(signatureSuffix)" }
    /// The freshness document, the second mutable file of a tree (replaced before the pointer).
    public static let timestamp = "timestamp.json"
    public static func bundlePath(sha256: String) -> String { "bundles/\(sha256).corpus.zip" }
    /// `deltas/<sha256>.delta.zip`: a content-addressed delta (docs/format.md "Delta").
    public static func deltaPath(sha256: String) -> String { "deltas/\(sha256).delta.zip" }
    /// `catalogs/<N>.top.json`: the signed top document of catalog version N (docs/format.md "Catalog parts").
    public static func topPath(version: Int) -> String { "catalogs/\(version)\(topSuffix)" }
    public static let topSuffix = ".top.json"
    /// `parts/<sha256>.json.gz`: a content-addressed catalog part, named by its stored bytes.
    public static func partPath(sha256: String) -> String { "parts/\(sha256).json.gz" }
    /// `payloads/<sha256>.age`: an encrypted bundle or delta (docs/format.md "Encrypted entitled corpora").
    public static func payloadPath(sha256: String) -> String { "payloads/\(sha256).age" }
    public static let signatureSuffix = ".minisig"

    /// True for the name (last segment) of a content-addressed file, `<sha256>.<suffix>`: 64
    /// lower-case hex digits, a dot and more, as bundles, embedder artifacts and deltas are named,
    /// whatever their folder. Such a file never changes once written: the gate-only server
    /// redirects exactly these to storage, and an upload sends them first.
    public static func isContentAddressed(_ name: String) -> Bool {
        let bytes = name.utf8
        guard bytes.count > 2 * SHA256Digest.byteCount + 1 else { return false }
        var i = 0
        for b in bytes {
            if i == 2 * SHA256Digest.byteCount { return b == UInt8(ascii: ".") }
            guard Hex.isLowerDigit(b) else { return false }
            i += 1
        }
        return false
    }

    /// The `Content-Type` a file of a tree is served with, by its name: the same from `corpusd
    /// serve` and from an object store the tree was uploaded to.
    public static func contentType(of name: String) -> String {
        // The OPDS feeds (`opds/`) carry the media types e-book readers look for.
        if name.hasSuffix(".opds.json") { return "application/opds+json" }
        if name.hasSuffix(".atom") { return "application/atom+xml;profile=opds-catalog" }
        if name.hasSuffix(".json") { return "application/json" }
        if name.hasSuffix(".zip") { return "application/zip" }
        if name.hasSuffix(".gz") { return "application/gzip" }
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".minisig") || name == "checkpoint" || name.hasSuffix(".pub") || name.hasSuffix(".txt") { return "text/plain; charset=utf-8" }
        return "application/octet-stream"
    }
}

/// Relative paths that stay inside a tree: no empty, `.` or `..` segments, no absolute paths,
/// backslashes, control bytes or dotfiles.
public enum TreePath {
    public static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, path.utf8.count <= 1024, !path.hasPrefix("/") else { return false }
        for b in path.utf8 where b < 0x20 || b == 0x7f || b == UInt8(ascii: "\\") { return false }
        for seg in path.split(separator: "/", omittingEmptySubsequences: false) {
            if seg.isEmpty || seg.hasPrefix(".") { return false }
        }
        return true
    }
}
