import Foundation

/// A content-addressed catalog part: `parts/<sha256>.json.gz`, named by the SHA-256 of its stored
/// (gzip) bytes, immutable (docs/format.md "Catalog parts").
public struct PartRef: Codable, Hashable, Sendable {
    /// The SHA-256 of the stored bytes. JSON `sha256`.
    public var digest: SHA256Digest
    public var size: Int64

    enum CodingKeys: String, CodingKey {
        case size
        case digest = "sha256"
    }

    public init(digest: SHA256Digest, size: Int64) {
        self.digest = digest
        self.size = size
    }

    /// The reference to `stored`, the bytes a part file holds.
    public init(stored: Data) {
        self.init(digest: SHA256.digest(stored), size: Int64(stored.count))
    }

    public var path: String { TreeLayout.partPath(sha256: digest.hex) }
}

/// What a partitioned catalog's top document says about its entries: how many there are, how
/// deep the trie of parts is, and the root part.
public struct CatalogParts: Codable, Hashable, Sendable {
    /// Entries in all the leaves.
    public var count: Int
    /// Hex digits of an entry's key that pick its leaf: levels of nodes above the leaves.
    public var depth: Int
    /// The root node (prefix "").
    public var root: PartRef

    public static let depthRange: ClosedRange<Int> = 1...8

    public init(count: Int, depth: Int, root: PartRef) {
        self.count = count
        self.depth = depth
        self.root = root
    }
}

/// One part of the trie, decoded: a node (prefix of fewer than `depth` hex digits) lists its
/// non-empty children by the next hex digit; a leaf (prefix of `depth` digits) holds every entry
/// whose key starts with its prefix, all entries of one corpus id together.
public struct CatalogPart: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case node
        case leaf
    }

    public var kind: Kind
    public var prefix: String
    /// Nodes only: child part by the next hex digit ("0"…"f"); an empty subtree is absent.
    public var children: [String: PartRef]?
    /// Leaves only: the entries, the shared `CatalogEntry` type (fields added to it flow through).
    public var entries: [CatalogEntry]?

    public static func node(prefix: String, children: [String: PartRef]) -> CatalogPart {
        CatalogPart(kind: .node, prefix: prefix, children: children, entries: nil)
    }

    public static func leaf(prefix: String, entries: [CatalogEntry]) -> CatalogPart {
        CatalogPart(kind: .leaf, prefix: prefix, children: nil, entries: entries)
    }

    /// The largest stored part a reader accepts, and the largest it inflates one to.
    public static let maxStoredBytes: Int64 = 4 * 1024 * 1024
    public static let maxDecodedBytes = 32 * 1024 * 1024

    /// The stored bytes: canonical JSON, gzip-compressed.
    public func stored() throws -> Data { try Gzip.compress(try CanonicalJSON.encode(self)) }

    /// Decodes the stored bytes of the part `ref` names, after checking their size and SHA-256
    /// against it: one whole gzip member of canonical JSON. Where the part sits in the trie (its
    /// kind and prefix) is the caller's to check.
    public static func decode(stored: Data, ref: PartRef) throws -> CatalogPart {
        let what = ref.path
        guard Int64(stored.count) == ref.size else { throw FormatError.sizeMismatch(member: what, expected: ref.size, actual: Int64(stored.count)) }
        let digest = SHA256.digest(stored)
        guard digest == ref.digest else { throw FormatError.hashMismatch(member: what, expected: ref.digest.hex, actual: digest.hex) }
        let json = try Gzip.decompress(stored, limit: maxDecodedBytes, what: what)
        return try CanonicalJSON.decode(CatalogPart.self, from: json, what: what)
    }

    /// The key that places an entry: SHA-256 of its corpus id (UTF-8), in lower-case hex, so every
    /// entry of one id lands in one leaf and the leaves fill evenly whatever the ids look like.
    public static func key(of id: String) -> String { SHA256Digest(bytes: keyBytes(of: id)).hex }

    /// The key's 32 bytes: SHA-256 of the id's UTF-8, hashed in place (no `Data` copy of each id).
    /// What the key, its prefix and the listing's boundaries (`ListingPartition.isBoundary`) are read from.
    public static func keyBytes(of id: String) -> [UInt8] {
        var id = id
        return id.withUTF8 { SHA256.hash(UnsafeRawBufferPointer($0)) }
    }

    /// The first `digits` hex digits of `key(of: id)`, the leaf's prefix, without the rest.
    public static func keyPrefix(of id: String, digits: Int) -> String {
        let hash = keyBytes(of: id)
        var out: [UInt8] = []
        out.reserveCapacity(digits + 1)
        for byte in hash.prefix((digits + 1) / 2) { Hex.append(byte, to: &out) }
        return String(decoding: out.prefix(digits), as: UTF8.self)
    }
}
