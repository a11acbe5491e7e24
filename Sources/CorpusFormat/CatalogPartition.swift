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

    /// The parts of a catalog: the top document's `parts` value and every part's stored bytes.
    public struct Built: Sendable {
        public var parts: CatalogParts
        public var stored: [PartRef: Data]
    }

    /// Builds the trie of `entries` at `depth` (by default `depth(forCount:)`). Entries keep their
    /// order within a leaf when their ids are equal (several channels of one id).
    public static func build(_ entries: [CatalogEntry], depth: Int? = nil) throws -> Built {
        let depth = depth ?? self.depth(forCount: entries.count)
        guard CatalogParts.depthRange.contains(depth) else { throw FormatError.malformed(what: "catalog parts", reason: "depth \(depth)") }
        var leaves: [String: [CatalogEntry]] = [:]
        for e in entries { leaves[String(CatalogPart.key(of: e.id).prefix(depth)), default: []].append(e) }
        var stored: [PartRef: Data] = [:]
        func add(_ part: CatalogPart) throws -> PartRef {
            let bytes = try part.stored()
            let ref = PartRef(stored: bytes)
            stored[ref] = bytes
            return ref
        }
        // Level by level from the leaves up: each level's refs keyed by prefix.
        var level: [String: PartRef] = [:]
        for (prefix, list) in leaves {
            let sorted = list.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }.map(\.element)
            level[prefix] = try add(.leaf(prefix: prefix, entries: sorted))
        }
        for length in stride(from: depth - 1, through: 0, by: -1) {
            var parents: [String: [String: PartRef]] = [:]
            for (prefix, ref) in level { parents[String(prefix.prefix(length)), default: [:]][String(prefix.suffix(1))] = ref }
            if length == 0 && parents.isEmpty { parents[""] = [:] }
            level = [:]
            for (prefix, children) in parents { level[prefix] = try add(.node(prefix: prefix, children: children)) }
        }
        return Built(parts: CatalogParts(count: entries.count, depth: depth, root: level[""]!), stored: stored)
    }
}
