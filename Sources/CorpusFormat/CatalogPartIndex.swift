import Foundation

/// The publisher's record of the parts of its last catalog version (`.catalog-parts` in the tree,
/// a dotfile like `.build-cache.json`: never referenced, never served): for each trie leaf and
/// node the digest of what it holds and the part that holds it, and for each listing part the
/// digest of its rows. A republish digests every bucket's entries (plain JSON, no gzip) and
/// reuses the part of each bucket whose digest it has, instead of encoding it as canonical JSON,
/// compressing it at level 9 and hashing it again: after one corpus changed, only the parts that
/// hold it are built (docs/format.md "Catalog parts", "Publishing").
///
/// Checked, never trusted blindly (`load`): it is used only when it was written for a top
/// document the tree holds (same version and trie root), and a part is reused only when its file
/// is in the tree with the recorded size. A digest covers every field the entries encode (the
/// `CatalogEntry` and `ListingRow` Codable types, so a field added later changes it), the
/// bucket's prefix and the kind of part; JSON that a new Foundation spells otherwise only makes
/// every digest new: one full rebuild, never a wrong reuse.
///
/// One line a bucket, not JSON: at 100,000 entries it holds about 56,000 buckets, read and written
/// by every republish. `L <prefix> <digest> <part> <size> <entries> <bytes>` (a leaf: how many
/// entries it holds and their size as JSON, for `CatalogPartition.Built.entryBytes`), `N <prefix
/// or -> <digest> <part> <size>`, `S <ids digest> <rows digest> <part> <size>` (a listing part: the
/// digest of its ids in order, then of its rows).
public struct CatalogPartIndex: Sendable, Equatable {
    public struct Bucket: Sendable, Hashable {
        public var digest: SHA256Digest
        public var part: PartRef
        /// A leaf's: how many entries it holds, and their size as JSON (0 for a node).
        public var entries: Int
        public var bytes: Int64

        public init(digest: SHA256Digest, part: PartRef, entries: Int = 0, bytes: Int64 = 0) {
            self.digest = digest
            self.part = part
            self.entries = entries
            self.bytes = bytes
        }
    }

    /// A listing part (keyed in `listing` by the digest of its ids in order): the digest of its
    /// rows, and the part.
    public struct ListingBucket: Sendable, Hashable {
        public var rows: SHA256Digest
        public var part: PartRef

        public init(rows: SHA256Digest, part: PartRef) {
            self.rows = rows
            self.part = part
        }
    }

    /// The catalog version whose top document this describes, and that document's trie root and depth.
    public var version: Int
    public var root: PartRef
    public var depth: Int
    /// Trie leaves and nodes by prefix.
    public var leaves: [String: Bucket]
    public var nodes: [String: Bucket]
    /// Listing parts by the digest of their ids in order.
    public var listing: [SHA256Digest: ListingBucket]

    public init(version: Int, root: PartRef, depth: Int, leaves: [String: Bucket], nodes: [String: Bucket], listing: [SHA256Digest: ListingBucket]) {
        self.version = version
        self.root = root
        self.depth = depth
        self.leaves = leaves
        self.nodes = nodes
        self.listing = listing
    }

    public static let fileName = ".catalog-parts"
    /// Format 2 added the leaves' counts and sizes and the listing parts' ids digests; a record of
    /// format 1 is not read (one full build).
    static let header = "catalog-parts 2"

    /// The digest of what a bucket holds: `kind`, `prefix`, then `value` as JSON with sorted keys.
    /// One encoder for a whole build (`Digester`), so a republish pays one encoding an entry.
    public final class Digester {
        private let encoder: JSONEncoder
        /// The JSON bytes digested so far: of a build's leaves, about the flat catalog's size.
        public private(set) var bytes: Int64 = 0

        public init() {
            encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        }

        public func digest<T: Encodable>(kind: String, prefix: String, _ value: T) throws -> SHA256Digest {
            try digestAndSize(kind: kind, prefix: prefix, value).digest
        }

        /// The digest and the size of `value`'s JSON.
        public func digestAndSize<T: Encodable>(kind: String, prefix: String, _ value: T) throws -> (digest: SHA256Digest, size: Int64) {
            let json = try encoder.encode(value)
            bytes += Int64(json.count)
            var hashed = Data("\(kind) \(prefix)\n".utf8)
            hashed.append(json)
            return (SHA256.digest(hashed), Int64(json.count))
        }
    }

    /// The digest of a node: its prefix and its children, digit by digit, as plain text (no JSON
    /// encoder: a node is its children's references, nothing else).
    public static func nodeDigest(prefix: String, children: [String: PartRef]) -> SHA256Digest {
        var text = "node \(prefix)\n"
        for (digit, ref) in children.sorted(by: { $0.key < $1.key }) { text += "\(digit) \(ref.digest.hex) \(ref.size)\n" }
        return SHA256.digest(Data(text.utf8))
    }

    /// The digest of a listing part's ids in order.
    public static func idsDigest<S: Sequence<String>>(_ ids: S) -> SHA256Digest {
        let d = Digest(.sha256)
        for id in ids {
            d.update(Data(id.utf8))
            d.update(Data([0x0A]))
        }
        return SHA256Digest(bytes: d.finalize())
    }

    public func serialized() -> Data {
        var text = "\(Self.header)\n\(version) \(depth) \(root.digest.hex) \(root.size)\n"
        text.reserveCapacity(160 * (leaves.count + nodes.count + listing.count))
        for (prefix, b) in leaves.sorted(by: { $0.key < $1.key }) {
            text += "L \(prefix) \(b.digest.hex) \(b.part.digest.hex) \(b.part.size) \(b.entries) \(b.bytes)\n"
        }
        for (prefix, b) in nodes.sorted(by: { $0.key < $1.key }) { text += "N \(prefix.isEmpty ? "-" : prefix) \(b.digest.hex) \(b.part.digest.hex) \(b.part.size)\n" }
        for (ids, b) in listing.sorted(by: { $0.key < $1.key }) { text += "S \(ids.hex) \(b.rows.hex) \(b.part.digest.hex) \(b.part.size)\n" }
        return Data(text.utf8)
    }

    /// Parses `serialized()`'s text; nil for anything else (a damaged or foreign file is not used).
    /// Byte by byte: at 100,000 entries the record is about 8 MB, read by every republish.
    public static func parse(_ data: Data) -> CatalogPartIndex? {
        let bytes = [UInt8](data)
        guard bytes.last == 0x0A else { return nil }
        var lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)[...]
        func text(_ s: ArraySlice<UInt8>) -> String { String(decoding: s, as: UTF8.self) }
        guard lines.count >= 2, text(lines.removeFirst()) == header else { return nil }
        let head = lines.removeFirst().split(separator: 0x20, omittingEmptySubsequences: false)
        guard head.count == 4, let version = Int(text(head[0])), let depth = Int(text(head[1])), let rootDigest = SHA256Digest(hex: text(head[2])),
              let rootSize = Int64(text(head[3])) else { return nil }
        var index = CatalogPartIndex(version: version, root: PartRef(digest: rootDigest, size: rootSize), depth: depth, leaves: [:], nodes: [:], listing: [:])
        index.leaves.reserveCapacity(lines.count)
        for line in lines {
            let f = line.split(separator: 0x20, omittingEmptySubsequences: false)
            guard f.count >= 5, f[0].count == 1, let digest = SHA256Digest(hex: text(f[2])), let part = SHA256Digest(hex: text(f[3])),
                  let size = Int64(text(f[4])), size > 0 else { return nil }
            let ref = PartRef(digest: part, size: size)
            let key = text(f[1])
            switch (f[0].first!, f.count) {
            case (UInt8(ascii: "L"), 7):
                guard let entries = Int(text(f[5])), entries > 0, let bytes = Int64(text(f[6])), bytes > 0 else { return nil }
                index.leaves[key] = Bucket(digest: digest, part: ref, entries: entries, bytes: bytes)
            case (UInt8(ascii: "N"), 5): index.nodes[key == "-" ? "" : key] = Bucket(digest: digest, part: ref)
            case (UInt8(ascii: "S"), 5):
                guard let ids = SHA256Digest(hex: key) else { return nil }
                index.listing[ids] = ListingBucket(rows: digest, part: ref)
            default: return nil
            }
        }
        return index
    }

    /// Every part this record names: the trie's leaves and nodes and the listing parts (not the
    /// listing index, which the caller has).
    public var parts: Set<PartRef> {
        Set(leaves.values.map(\.part)).union(nodes.values.map(\.part)).union(listing.values.map(\.part))
    }

    /// The tree's index when it describes a top document the tree holds (same version, trie root
    /// and depth); nil otherwise: a missing, damaged or stale index means a full build, never a
    /// guess.
    public static func load(tree: String) -> CatalogPartIndex? {
        guard let data = FileManager.default.contents(atPath: "\(tree)/\(fileName)"), let index = parse(data),
              let top = PublishedTree(root: tree).readTop(index.version), let parts = top.parts,
              parts.root == index.root, parts.depth == index.depth else { return nil }
        return index
    }

    public func write(tree: String) throws {
        try FileIO.writeAtomically(serialized(), to: "\(tree)/\(Self.fileName)")
    }

    /// True when the tree holds `ref`'s file with its size: a reused part must be there to be named.
    public static func holds(_ ref: PartRef, tree: String) -> Bool { FileIO.fileSize("\(tree)/\(ref.path)") == ref.size }
}
