import Foundation

/// The publisher's record of the parts of its last catalog version (`.catalog-parts` in the tree,
/// a dotfile like `.build-cache`: never referenced, never served): for each trie leaf and
/// node the digest of what it holds and the part that holds it, for each listing part (in order)
/// the digest of its ids and of its rows, and the parts earlier versions named that later ones
/// replaced (`replaced`, what the garbage collection after a republish looks at). A republish
/// reuses the part of every bucket whose entries did not change instead of encoding it as
/// canonical JSON, compressing it at level 9 and hashing it again (docs/format.md "Catalog parts",
/// "What a republish builds").
///
/// Checked, never trusted blindly (`load`): it is used only when it was written for a top
/// document the tree holds (same version and trie root). A digest covers every field the entries
/// encode (the `CatalogEntry` and `ListingRow` Codable types, so a field added later changes it),
/// the bucket's prefix and the kind of part; JSON that a new Foundation spells otherwise only
/// makes every digest new: one full rebuild, never a wrong reuse.
///
/// Binary, fixed-size records sorted by place (`CatalogPartRecordFile`): at 100,000 entries it
/// holds about 56,000 buckets, and a republish that changed a few corpora reads the few it needs
/// and patches them in place rather than parsing and writing them all.
public struct CatalogPartIndex: Sendable, Equatable {
    public struct Bucket: Sendable, Hashable {
        public var digest: SHA256Digest
        public var part: PartRef
        /// A leaf's: how many entries it holds, and their size as JSON (0 for a node).
        public var entries: Int
        public var bytes: Int64
        /// The catalog version since which this place has named `part` without a break, 0 when
        /// unknown (a part a full build found in the tree): what `replaced` records when it goes.
        public var since: Int

        public init(digest: SHA256Digest, part: PartRef, entries: Int = 0, bytes: Int64 = 0, since: Int = 0) {
            self.digest = digest
            self.part = part
            self.entries = entries
            self.bytes = bytes
            self.since = since
        }
    }

    /// A listing part: the digest of its ids in order, of its rows, the part, how many rows and
    /// distinct ids it holds, and since when the listing names it.
    public struct ListingBucket: Sendable, Hashable {
        public var ids: SHA256Digest
        public var rows: SHA256Digest
        public var part: PartRef
        public var rowCount: Int
        public var idCount: Int
        public var since: Int

        public init(ids: SHA256Digest, rows: SHA256Digest, part: PartRef, rowCount: Int, idCount: Int, since: Int = 0) {
            self.ids = ids
            self.rows = rows
            self.part = part
            self.rowCount = rowCount
            self.idCount = idCount
            self.since = since
        }
    }

    /// A part that versions `since` up to (not including) `until` named at `place` and version
    /// `until` no longer did: it may be removed once no retained top document of those versions
    /// is left (`PublishedTree.removeReplacedParts`). `since` 0: unknown, any version before `until`.
    public struct Replaced: Sendable, Hashable {
        public enum Place: Sendable, Hashable {
            case leaf(slot: Int)
            case node(level: Int, slot: Int)
            case listing
            case listingIndex
        }

        public var part: PartRef
        public var since: Int
        public var until: Int
        public var place: Place

        public init(part: PartRef, since: Int, until: Int, place: Place) {
            self.part = part
            self.since = since
            self.until = until
            self.place = place
        }
    }

    /// The catalog version whose top document this describes, and that document's trie root and depth.
    public var version: Int
    public var root: PartRef
    public var depth: Int
    /// The entries the catalog holds and their size as JSON (`CatalogPartition.Built.entryBytes`).
    public var count: Int
    public var entryBytes: Int64
    /// The digest of the catalog's distinct ids in the order they first appear
    /// (`CatalogPartIndex.OrderDigest`): a republish whose ids come in the same order keeps
    /// every listing part's place.
    public var order: SHA256Digest
    /// Trie leaves and nodes by prefix.
    public var leaves: [String: Bucket]
    public var nodes: [String: Bucket]
    /// Listing parts in order, and the listing index with the version since which it is named.
    public var listing: [ListingBucket]
    public var listingIndex: PartRef
    public var listingIndexSince: Int
    /// Parts earlier versions named that this one does not, not yet removed.
    public var replaced: [Replaced]

    public init(version: Int, root: PartRef, depth: Int, count: Int, entryBytes: Int64, order: SHA256Digest,
                leaves: [String: Bucket], nodes: [String: Bucket], listing: [ListingBucket], listingIndex: PartRef,
                listingIndexSince: Int = 0, replaced: [Replaced] = []) {
        self.version = version
        self.root = root
        self.depth = depth
        self.count = count
        self.entryBytes = entryBytes
        self.order = order
        self.leaves = leaves
        self.nodes = nodes
        self.listing = listing
        self.listingIndex = listingIndex
        self.listingIndexSince = listingIndexSince
        self.replaced = replaced
    }

    public static let fileName = ".catalog-parts"

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

    /// The digest of a listing part's ids in order (each id's UTF-8 and a newline, as `OrderDigest`).
    public static func idsDigest<S: Sequence<String>>(_ ids: S) -> SHA256Digest {
        let d = OrderDigest()
        for id in ids { d.add(id) }
        return d.finalize()
    }

    /// The tree's record when it describes a top document the tree holds (same version, trie root,
    /// depth and listing index); nil otherwise: a missing, damaged or stale record means a full
    /// build, never a guess.
    public static func load(tree: String) -> CatalogPartIndex? {
        guard let file = CatalogPartRecordFile.load(tree: tree) else { return nil }
        return file.index()
    }

    public func write(tree: String) throws {
        try CatalogPartRecordFile(self).write(tree: tree)
    }

    /// True when the tree holds `ref`'s file with its size: a reused part must be there to be named.
    public static func holds(_ ref: PartRef, tree: String) -> Bool { FileIO.fileSize("\(tree)/\(ref.path)") == ref.size }

    /// The hex prefix of `digits` digits a slot number stands for ("" for the root's).
    public static func prefix(slot: Int, digits: Int) -> String {
        guard digits > 0 else { return "" }
        let hex = String(slot, radix: 16)
        return String(repeating: "0", count: max(0, digits - hex.count)) + hex
    }

    /// The slot number of a hex prefix (0 for "").
    public static func slot(prefix: String) -> Int { prefix.isEmpty ? 0 : Int(prefix, radix: 16) ?? -1 }
}

extension CatalogPartIndex {
    /// The digest of a catalog's distinct ids in the order they first appear, each id's UTF-8 and a
    /// newline: whether a republish lists the same corpora in the same order (`order`).
    public final class OrderDigest {
        private let digest = Digest(.sha256)
        private static let newline: [UInt8] = [0x0A]

        public init() {}

        public func add(_ id: String) {
            var id = id
            id.withUTF8 { digest.update(UnsafeRawBufferPointer($0)) }
            Self.newline.withUnsafeBytes { digest.update($0) }
        }

        public func finalize() -> SHA256Digest { SHA256Digest(bytes: digest.finalize()) }

        /// The digest of `entries`' ids, each where it first appears.
        public static func of(_ entries: [CatalogEntry]) -> SHA256Digest {
            let d = OrderDigest()
            var seen = Set<String>()
            seen.reserveCapacity(entries.count)
            for e in entries where seen.insert(e.id).inserted { d.add(e.id) }
            return d.finalize()
        }
    }
}

/// `value` with `change` applied.
private func modify<T>(_ value: T, _ change: (inout T) -> Void) -> T {
    var value = value
    change(&value)
    return value
}

extension CatalogPartIndex {
    /// The record of a version built in full (`CatalogPartition`, `ListingPartition`) after the
    /// record `last` (nil when there was none to use): a part keeps its `since` where the same
    /// place named it before, starts at `version` when this build wrote it (`written`: file names
    /// under `parts/`), and is 0 (unknown) when it was in the tree already. Every part `last`
    /// named at a place this version names otherwise joins the replaced parts.
    public static func after(_ last: CatalogPartIndex?, version: Int, parts built: CatalogPartition.Built, listing: ListingPartition.Built,
                             order: SHA256Digest, written: Set<String>) -> CatalogPartIndex {
        func since(_ part: PartRef, _ since: Int) -> Int {
            since == 0 && written.contains((part.path as NSString).lastPathComponent) ? version : since
        }
        let leaves = built.leaves.mapValues { b in modify(b) { $0.since = since(b.part, b.since) } }
        let nodes = built.nodes.mapValues { b in modify(b) { $0.since = since(b.part, b.since) } }
        let buckets = listing.buckets.map { b in modify(b) { $0.since = since(b.part, b.since) } }
        let index = listing.listing.index
        let indexSince = since(index, last?.listingIndex == index ? last!.listingIndexSince : 0)
        var replaced = last?.replaced ?? []
        if let last {
            for (prefix, b) in last.leaves where leaves[prefix]?.part != b.part {
                replaced.append(.init(part: b.part, since: b.since, until: version, place: .leaf(slot: slot(prefix: prefix))))
            }
            for (prefix, b) in last.nodes where nodes[prefix]?.part != b.part {
                replaced.append(.init(part: b.part, since: b.since, until: version, place: .node(level: prefix.count, slot: slot(prefix: prefix))))
            }
            let now = Set(buckets.map(\.part))
            for b in last.listing where !now.contains(b.part) { replaced.append(.init(part: b.part, since: b.since, until: version, place: .listing)) }
            if last.listingIndex != index {
                replaced.append(.init(part: last.listingIndex, since: last.listingIndexSince, until: version, place: .listingIndex))
            }
        }
        return CatalogPartIndex(version: version, root: built.parts.root, depth: built.parts.depth, count: built.parts.count,
                                entryBytes: built.entryBytes, order: order, leaves: leaves, nodes: nodes, listing: buckets,
                                listingIndex: index, listingIndexSince: indexSince, replaced: replaced)
    }
}
