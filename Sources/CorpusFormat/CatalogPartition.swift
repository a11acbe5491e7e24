import Foundation

/// Splits a catalog's entries into the trie of parts its top document names (docs/format.md
/// "Catalog parts"). Pure: the caller writes the parts it does not have yet.
public enum CatalogPartition {
    /// The trie's depth for `count` entries: the fewest hex digits that leave at most 4 entries a
    /// leaf on average (1,000 entries: 2; 100,000: 4; 1,000,000: 5), so a leaf stays near one
    /// kilobyte compressed while a node lists at most 16 children.
    public static func depth(forCount count: Int) -> Int {
        var depth = 1
        while depth < CatalogParts.depthRange.upperBound && count > 4 << (4 * depth) { depth += 1 }
        return depth
    }

    /// The parts of a catalog: the top document's `parts` value and the stored bytes of every part
    /// built (all of them without `reuse`; with it, only the parts of buckets that changed).
    public struct Built: Sendable {
        public var parts: CatalogParts
        public var stored: [PartRef: Data]
        /// Every leaf and node by prefix, with the digest of what it holds (`CatalogPartIndex`);
        /// `since` is the record's for a part reused from it, else 0.
        public var leaves: [String: CatalogPartIndex.Bucket] = [:]
        public var nodes: [String: CatalogPartIndex.Bucket] = [:]
        /// Parts named from `reuse` rather than built.
        public var reused = 0
        /// The entries' bytes as JSON (the digests'): within a few bytes an entry of the flat
        /// catalog's size, known without encoding it (`Catalog.maxFlatBytes`).
        public var entryBytes: Int64 = 0
    }

    /// Builds the trie of `entries` at `depth` (by default `depth(forCount:)`). Entries keep their
    /// order within a leaf when their ids are equal (several channels of one id).
    ///
    /// With `reuse` (the publisher's index of its last version, at the same depth), a leaf or node
    /// whose digest the index records keeps the part it names when `holds` says the tree has it:
    /// that part was built from the same entries (or children), so it is the same bytes a build
    /// would make. Everything else is built.
    ///
    /// With `previous` too (that version's entries; the caller checked they are the record's
    /// version), a leaf is compared with them by value and is not digested when it holds the same
    /// entries as before: its recorded digest, size and part stand. Only the leaves that changed
    /// are encoded as JSON.
    public static func build(_ entries: [CatalogEntry], depth: Int? = nil, reuse: CatalogPartIndex? = nil,
                             previous: CatalogPreviousEntries? = nil, holds: (PartRef) -> Bool = { _ in false }) throws -> Built {
        let depth = depth ?? self.depth(forCount: entries.count)
        guard CatalogParts.depthRange.contains(depth) else { throw FormatError.malformed(what: "catalog parts", reason: "depth \(depth)") }
        let reuse = reuse?.depth == depth ? reuse : nil
        let previous = reuse == nil ? nil : previous
        let digester = CatalogPartIndex.Digester()
        // Positions, not entries: an entry is a large value, and copying one costs a retain a field.
        var leaves: [String: [Int]] = [:]
        for i in entries.indices { leaves[CatalogPart.keyPrefix(of: entries[i].id, digits: depth), default: []].append(i) }
        var built = Built(parts: CatalogParts(count: entries.count, depth: depth, root: PartRef(digest: SHA256.digest(Data()), size: 0)), stored: [:])
        /// The part for a bucket: the recorded one when its digest matches and the tree holds it, else built.
        func part(_ digest: SHA256Digest, recorded: CatalogPartIndex.Bucket?, _ make: () -> CatalogPart) throws -> PartRef {
            if let recorded, recorded.digest == digest, holds(recorded.part) {
                built.reused += 1
                return recorded.part
            }
            let bytes = try make().stored()
            let ref = PartRef(stored: bytes)
            built.stored[ref] = bytes
            return ref
        }
        // Level by level from the leaves up: each level's refs keyed by prefix.
        var level: [String: PartRef] = [:]
        for (prefix, list) in leaves {
            let sorted = list.count == 1 ? list : list.sorted { (entries[$0].id, $0) < (entries[$1].id, $1) }
            let recorded = reuse?.leaves[prefix]
            if let previous, let recorded, recorded.entries == sorted.count, previous.unchanged(sorted, of: entries), holds(recorded.part) {
                built.reused += 1
                built.entryBytes += recorded.bytes
                built.leaves[prefix] = recorded
                level[prefix] = recorded.part
                continue
            }
            let leaf = sorted.map { entries[$0] }
            let (digest, size) = try digester.digestAndSize(kind: "leaf", prefix: prefix, leaf)
            let ref = try part(digest, recorded: recorded) { .leaf(prefix: prefix, entries: leaf) }
            built.entryBytes += size
            built.leaves[prefix] = .init(digest: digest, part: ref, entries: sorted.count, bytes: size, since: recorded?.part == ref ? recorded!.since : 0)
            level[prefix] = ref
        }
        for length in stride(from: depth - 1, through: 0, by: -1) {
            var parents: [String: [String: PartRef]] = [:]
            for (prefix, ref) in level { parents[String(prefix.prefix(length)), default: [:]][String(prefix.suffix(1))] = ref }
            if length == 0 && parents.isEmpty { parents[""] = [:] }
            level = [:]
            for (prefix, children) in parents {
                let digest = CatalogPartIndex.nodeDigest(prefix: prefix, children: children)
                let recorded = reuse?.nodes[prefix]
                let ref = try part(digest, recorded: recorded) { .node(prefix: prefix, children: children) }
                built.nodes[prefix] = .init(digest: digest, part: ref, since: recorded?.part == ref ? recorded!.since : 0)
                level[prefix] = ref
            }
        }
        built.parts.root = level[""]!
        return built
    }
}
