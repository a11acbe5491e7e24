import Foundation

/// The bytes of the publisher's record (`CatalogPartIndex`, `.catalog-parts`), read and patched in
/// place: fixed-size little-endian records, leaves sorted by slot, nodes by level then slot,
/// listing parts in order, then the replaced parts. A republish that changed a few corpora looks
/// up the buckets it needs by binary search and overwrites them, so neither reading nor writing
/// the record costs a parse or a format of every bucket (at 100,000 entries about 56,000 of them:
/// 5 MB, copied at memory speed).
///
/// `catalog-parts 3\n`, then eleven Int64 (version, depth, count, entry bytes, root size, listing
/// index size, listing index since, leaves, nodes, listing parts, replaced parts) and three
/// digests (root, order, listing index); then the records (docs/format.md "What a republish builds").
/// A record of another format, length or header is not read: one full build.
public struct CatalogPartRecordFile: Sendable {
    public private(set) var data: Data

    static let magic = Array("catalog-parts 3\n".utf8)
    static let headerSize = 16 + 11 * 8 + 3 * 32
    static let leafSize = 4 + 4 + 8 + 8 + 8 + 32 + 32
    static let nodeSize = 4 + 4 + 8 + 8 + 32 + 32
    static let listingSize = 4 + 4 + 8 + 8 + 32 + 32 + 32
    static let replacedSize = 4 + 4 + 8 + 8 + 8 + 8 + 32

    /// Checks the magic, the header and that the length is the records' exactly; nil otherwise.
    public init?(_ data: Data) {
        self.data = data
        guard data.count >= Self.headerSize, Array(data.prefix(16)) == Self.magic else { return nil }
        let counts = [leafCount, nodeCount, listingCount, replacedCount]
        guard counts.allSatisfy({ $0 >= 0 && $0 <= data.count }), version >= 1, CatalogParts.depthRange.contains(depth),
              data.count == replacedOffset + replacedCount * Self.replacedSize else { return nil }
    }

    /// The bytes of `index`.
    public init(_ index: CatalogPartIndex) {
        data = Self.serialize(index)
    }

    /// The tree's record when it describes a top document the tree holds (same version, trie root,
    /// depth and listing index); nil otherwise.
    public static func load(tree: String) -> CatalogPartRecordFile? {
        guard let data = FileManager.default.contents(atPath: "\(tree)/\(CatalogPartIndex.fileName)"), let file = CatalogPartRecordFile(data),
              let top = PublishedTree(root: tree).readTop(file.version), let parts = top.parts,
              parts.root == file.root, parts.depth == file.depth, top.listing?.index == file.listingIndex else { return nil }
        return file
    }

    public func write(tree: String) throws {
        try FileIO.writeAtomically(data, to: "\(tree)/\(CatalogPartIndex.fileName)")
    }

    // MARK: header

    private func int(_ offset: Int) -> Int { Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) }.littleEndian) }
    private func u32(_ offset: Int) -> Int { Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }.littleEndian) }
    private func digest(_ offset: Int) -> SHA256Digest { SHA256Digest(bytes: [UInt8](data[data.startIndex + offset ..< data.startIndex + offset + 32])) }
    private mutating func setInt(_ offset: Int, _ v: Int) { data.withUnsafeMutableBytes { $0.storeBytes(of: Int64(v).littleEndian, toByteOffset: offset, as: Int64.self) } }
    private mutating func setU32(_ offset: Int, _ v: Int) { data.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(v).littleEndian, toByteOffset: offset, as: UInt32.self) } }
    private mutating func setDigest(_ offset: Int, _ d: SHA256Digest) {
        data.replaceSubrange(data.startIndex + offset ..< data.startIndex + offset + 32, with: d.bytes)
    }

    public var version: Int { int(16) }
    public var depth: Int { int(24) }
    public var count: Int { int(32) }
    public var entryBytes: Int64 { Int64(int(40)) }
    public var root: PartRef { PartRef(digest: digest(104), size: Int64(int(48))) }
    public var listingIndex: PartRef { PartRef(digest: digest(168), size: Int64(int(56))) }
    public var listingIndexSince: Int { int(64) }
    public var leafCount: Int { int(72) }
    public var nodeCount: Int { int(80) }
    public var listingCount: Int { int(88) }
    public var replacedCount: Int { int(96) }
    public var order: SHA256Digest { digest(136) }

    var leafOffset: Int { Self.headerSize }
    var nodeOffset: Int { leafOffset + leafCount * Self.leafSize }
    var listingOffset: Int { nodeOffset + nodeCount * Self.nodeSize }
    var replacedOffset: Int { listingOffset + listingCount * Self.listingSize }

    /// Sets what a new version changes in the header.
    public mutating func setHeader(version: Int, root: PartRef, entryBytes: Int64, listingIndex: PartRef, listingIndexSince: Int) {
        setInt(16, version)
        setInt(40, Int(entryBytes))
        setInt(48, Int(root.size))
        setDigest(104, root.digest)
        setInt(56, Int(listingIndex.size))
        setDigest(168, listingIndex.digest)
        setInt(64, listingIndexSince)
    }

    // MARK: leaves and nodes

    /// The position of the leaf at `slot`, by binary search; nil when the trie has no such leaf.
    public func leafIndex(slot: Int) -> Int? {
        search(count: leafCount) { u32(leafOffset + $0 * Self.leafSize) < slot ? .less : (u32(leafOffset + $0 * Self.leafSize) == slot ? .equal : .greater) }
    }

    public func leaf(at i: Int) -> (slot: Int, bucket: CatalogPartIndex.Bucket) {
        let o = leafOffset + i * Self.leafSize
        return (u32(o), .init(digest: digest(o + 32), part: PartRef(digest: digest(o + 64), size: Int64(int(o + 24))), entries: u32(o + 4),
                              bytes: Int64(int(o + 8)), since: int(o + 16)))
    }

    public mutating func setLeaf(at i: Int, _ b: CatalogPartIndex.Bucket) {
        let o = leafOffset + i * Self.leafSize
        setU32(o + 4, b.entries)
        setInt(o + 8, Int(b.bytes))
        setInt(o + 16, b.since)
        setInt(o + 24, Int(b.part.size))
        setDigest(o + 32, b.digest)
        setDigest(o + 64, b.part.digest)
    }

    /// The position of the node at `level` (its prefix's digits) and `slot`; nil when there is none.
    public func nodeIndex(level: Int, slot: Int) -> Int? {
        let key = level << 32 | slot
        return search(count: nodeCount) {
            let o = nodeOffset + $0 * Self.nodeSize
            let k = u32(o) << 32 | u32(o + 4)
            return k < key ? .less : (k == key ? .equal : .greater)
        }
    }

    public func node(at i: Int) -> (level: Int, slot: Int, bucket: CatalogPartIndex.Bucket) {
        let o = nodeOffset + i * Self.nodeSize
        return (u32(o), u32(o + 4), .init(digest: digest(o + 24), part: PartRef(digest: digest(o + 56), size: Int64(int(o + 16))), since: int(o + 8)))
    }

    public mutating func setNode(at i: Int, _ b: CatalogPartIndex.Bucket) {
        let o = nodeOffset + i * Self.nodeSize
        setInt(o + 8, b.since)
        setInt(o + 16, Int(b.part.size))
        setDigest(o + 24, b.digest)
        setDigest(o + 56, b.part.digest)
    }

    // MARK: listing and replaced parts

    public func listing(at i: Int) -> CatalogPartIndex.ListingBucket {
        let o = listingOffset + i * Self.listingSize
        return .init(ids: digest(o + 24), rows: digest(o + 56), part: PartRef(digest: digest(o + 88), size: Int64(int(o + 16))),
                     rowCount: u32(o), idCount: u32(o + 4), since: int(o + 8))
    }

    public mutating func setListing(at i: Int, _ b: CatalogPartIndex.ListingBucket) {
        let o = listingOffset + i * Self.listingSize
        setU32(o, b.rowCount)
        setU32(o + 4, b.idCount)
        setInt(o + 8, b.since)
        setInt(o + 16, Int(b.part.size))
        setDigest(o + 24, b.ids)
        setDigest(o + 56, b.rows)
        setDigest(o + 88, b.part.digest)
    }

    public var replaced: [CatalogPartIndex.Replaced] {
        (0..<replacedCount).compactMap { i in
            let o = replacedOffset + i * Self.replacedSize
            let place: CatalogPartIndex.Replaced.Place
            switch u32(o) {
            case 0: place = .leaf(slot: int(o + 8))
            case 1: place = .node(level: u32(o + 4), slot: int(o + 8))
            case 2: place = .listing
            case 3: place = .listingIndex
            default: return nil
            }
            return .init(part: PartRef(digest: digest(o + 40), size: Int64(int(o + 32))), since: int(o + 16), until: int(o + 24), place: place)
        }
    }

    /// Replaces the replaced parts (the last section: the file's tail is written again).
    public mutating func setReplaced(_ items: [CatalogPartIndex.Replaced]) {
        data.removeSubrange(data.startIndex + replacedOffset ..< data.endIndex)
        setInt(96, items.count)
        Self.append(items, to: &data)
    }

    // MARK: whole records

    /// Every bucket decoded, as the full build's path uses them.
    public func index() -> CatalogPartIndex {
        var leaves: [String: CatalogPartIndex.Bucket] = [:], nodes: [String: CatalogPartIndex.Bucket] = [:]
        leaves.reserveCapacity(leafCount)
        for i in 0..<leafCount {
            let (slot, b) = leaf(at: i)
            leaves[CatalogPartIndex.prefix(slot: slot, digits: depth)] = b
        }
        for i in 0..<nodeCount {
            let (level, slot, b) = node(at: i)
            nodes[CatalogPartIndex.prefix(slot: slot, digits: level)] = b
        }
        return CatalogPartIndex(version: version, root: root, depth: depth, count: count, entryBytes: entryBytes, order: order,
                                leaves: leaves, nodes: nodes, listing: (0..<listingCount).map { listing(at: $0) },
                                listingIndex: listingIndex, listingIndexSince: listingIndexSince, replaced: replaced)
    }

    public static func serialize(_ index: CatalogPartIndex) -> Data {
        var out = Data(magic)
        out.reserveCapacity(headerSize + index.leaves.count * leafSize + index.nodes.count * nodeSize + index.listing.count * listingSize)
        func int(_ v: Int) { append(int: v, to: &out) }
        func u32(_ v: Int) { append(u32: v, to: &out) }
        func digest(_ d: SHA256Digest) { out.append(contentsOf: d.bytes) }
        for v in [index.version, index.depth, index.count, Int(index.entryBytes), Int(index.root.size), Int(index.listingIndex.size),
                  index.listingIndexSince, index.leaves.count, index.nodes.count, index.listing.count, index.replaced.count] { int(v) }
        digest(index.root.digest)
        digest(index.order)
        digest(index.listingIndex.digest)
        for (slot, b) in index.leaves.map({ (CatalogPartIndex.slot(prefix: $0.key), $0.value) }).sorted(by: { $0.0 < $1.0 }) {
            u32(slot); u32(b.entries); int(Int(b.bytes)); int(b.since); int(Int(b.part.size)); digest(b.digest); digest(b.part.digest)
        }
        for (key, b) in index.nodes.map({ ($0.key.count << 32 | CatalogPartIndex.slot(prefix: $0.key), $0.value) }).sorted(by: { $0.0 < $1.0 }) {
            u32(key >> 32); u32(key & 0xFFFF_FFFF); int(b.since); int(Int(b.part.size)); digest(b.digest); digest(b.part.digest)
        }
        for b in index.listing {
            u32(b.rowCount); u32(b.idCount); int(b.since); int(Int(b.part.size)); digest(b.ids); digest(b.rows); digest(b.part.digest)
        }
        append(index.replaced, to: &out)
        return out
    }

    private static func append(int v: Int, to out: inout Data) { withUnsafeBytes(of: Int64(v).littleEndian) { out.append(contentsOf: $0) } }
    private static func append(u32 v: Int, to out: inout Data) { withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) } }

    /// Appends the replaced parts' records.
    static func append(_ items: [CatalogPartIndex.Replaced], to out: inout Data) {
        out.reserveCapacity(out.count + items.count * replacedSize)
        func int(_ v: Int) { append(int: v, to: &out) }
        func u32(_ v: Int) { append(u32: v, to: &out) }
        for r in items {
            switch r.place {
            case .leaf(let slot): u32(0); u32(0); int(slot)
            case .node(let level, let slot): u32(1); u32(level); int(slot)
            case .listing: u32(2); u32(0); int(0)
            case .listingIndex: u32(3); u32(0); int(0)
            }
            int(r.since); int(r.until); int(Int(r.part.size)); out.append(contentsOf: r.part.digest.bytes)
        }
    }

    private enum Order { case less, equal, greater }

    private func search(count: Int, _ compare: (Int) -> Order) -> Int? {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            switch compare(mid) {
            case .less: low = mid + 1
            case .equal: return mid
            case .greater: high = mid
            }
        }
        return nil
    }
}

extension CatalogPartRecordFile {
    /// Every part this record names: the trie's leaves and nodes, the listing parts and index.
    public var parts: Set<PartRef> {
        var parts = Set<PartRef>(minimumCapacity: leafCount + nodeCount + listingCount + 1)
        for i in 0..<leafCount { parts.insert(leaf(at: i).bucket.part) }
        for i in 0..<nodeCount { parts.insert(node(at: i).bucket.part) }
        for i in 0..<listingCount { parts.insert(listing(at: i).part) }
        parts.insert(listingIndex)
        return parts
    }

    /// True when the record names `ref` at the place `level` (prefix digits) and `slot`: a leaf at
    /// the trie's depth, a node above it.
    public func names(_ ref: PartRef, level: Int, slot: Int) -> Bool {
        if level == depth { return leafIndex(slot: slot).map { leaf(at: $0).bucket.part == ref } ?? false }
        return nodeIndex(level: level, slot: slot).map { node(at: $0).bucket.part == ref } ?? false
    }
}
