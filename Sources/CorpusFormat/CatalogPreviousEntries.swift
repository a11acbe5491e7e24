import Foundation
import Synchronization

/// The entries of the catalog version a publisher's record (`CatalogPartIndex`) describes, which
/// the publisher holds anyway (`corpusd publish` reads them for its history checks), grouped by
/// id: a republish compares its entries with these by value (`CatalogEntry.isIdentical`) to find
/// what changed, instead of encoding every entry as JSON (docs/format.md "What a republish builds").
///
/// Tied to one version: `version` and `root` say which top document's trie the entries were read
/// through (or, in the bench, generated for), and `CatalogPartWriter` uses them only with a record
/// of that very version and root; any other pair means the digest path, never a guess.
public struct CatalogPreviousEntries: Sendable {
    public let version: Int
    public let root: PartRef
    public let count: Int
    /// Every entry, those of one id together in the order the version listed them (a group);
    /// group `g` is `flat[start[g] ..< start[g + 1]]`.
    let flat: [CatalogEntry]
    let start: [Int]
    let group: [String: Int]

    public init(version: Int, root: PartRef, entries: [CatalogEntry]) {
        self.version = version
        self.root = root
        count = entries.count
        var members: [[Int]] = []
        var group: [String: Int] = [:]
        group.reserveCapacity(entries.count)
        for i in entries.indices {
            if let g = group[entries[i].id] {
                members[g].append(i)
            } else {
                group[entries[i].id] = members.count
                members.append([i])
            }
        }
        var flat: [CatalogEntry] = [], start: [Int] = []
        flat.reserveCapacity(entries.count)
        start.reserveCapacity(members.count + 1)
        for m in members {
            start.append(flat.count)
            for i in m { flat.append(entries[i]) }
        }
        start.append(flat.count)
        self.flat = flat
        self.start = start
        self.group = group
    }

    /// The version's entries of group `g`.
    func entries(ofGroup g: Int) -> ArraySlice<CatalogEntry> { flat[start[g] ..< start[g + 1]] }

    /// True when `entries[positions]`, runs of one id each (as a leaf or a listing part holds
    /// them), are the version's entries of those ids, the same in number, order and bytes. The
    /// caller checks that the bucket held as many entries (no id left it).
    func unchanged(_ positions: [Int], of entries: [CatalogEntry]) -> Bool {
        // Through buffers: an array's subscript here copied each entry (a retain a field).
        entries.withUnsafeBufferPointer { entries in
            flat.withUnsafeBufferPointer { flat in
                var i = 0
                while i < positions.count {
                    guard let g = group[entries[positions[i]].id] else { return false }
                    for k in start[g] ..< start[g + 1] {
                        guard i < positions.count, flat[k].isIdentical(to: entries[positions[i]]) else { return false }
                        i += 1
                    }
                    if i < positions.count && entries[positions[i]].id == flat[start[g]].id { return false }
                }
                return true
            }
        }
    }

    /// What changed from this version to `entries` when they list the same ids (no id added or
    /// removed): the groups whose entries differ in number, order or bytes, with their positions
    /// in `entries`; and the ids in the order they first appear (`CatalogPartIndex.OrderDigest`,
    /// and each group's place in that order). Nil when an id was added or removed.
    public struct Changes {
        /// Changed groups, each with its positions in the new entries, ascending.
        public internal(set) var groups: [Int: [Int]] = [:]
        /// Each group by the place its id first appears in the new entries.
        var groupAtOrdinal: [Int32] = []
        /// The ordinal of each changed group.
        var ordinal: [Int: Int] = [:]
        public internal(set) var order = SHA256Digest(bytes: [UInt8](repeating: 0, count: 32))
    }

    public func changes(in entries: [CatalogEntry]) -> Changes? {
        let groups = start.count - 1
        var seen = [Int32](repeating: 0, count: groups)
        var changed = [Bool](repeating: false, count: groups)
        var groupOf = [Int32](repeating: 0, count: entries.count)
        // The version's entry each new one should equal (the k-th of its id), -1 for none.
        var expected = [Int32](repeating: -1, count: entries.count)
        var out = Changes()
        out.groupAtOrdinal.reserveCapacity(groups)
        let order = CatalogPartIndex.OrderDigest()
        let complete: Bool = entries.withUnsafeBufferPointer { entries in
            for i in entries.indices {
                guard let g = group[entries[i].id] else { return false }
                groupOf[i] = Int32(g)
                let k = Int(seen[g])
                seen[g] += 1
                if k == 0 {
                    out.groupAtOrdinal.append(Int32(g))
                    order.add(entries[i].id)
                }
                if start[g] + k < start[g + 1] { expected[i] = Int32(start[g] + k) }
            }
            return true
        }
        guard complete else { return nil }
        for g in 0..<groups where Int(seen[g]) != start[g + 1] - start[g] {
            guard seen[g] > 0 else { return nil }
            changed[g] = true
        }
        for i in differing(entries, expected) { changed[Int(groupOf[i])] = true }
        for i in entries.indices where changed[Int(groupOf[i])] { out.groups[Int(groupOf[i]), default: []].append(i) }
        for (o, g) in out.groupAtOrdinal.enumerated() where changed[Int(g)] { out.ordinal[Int(g)] = o }
        out.order = order.finalize()
        return out
    }

    /// The positions whose entry is not identical to the version's entry `expected` names (or has
    /// none), compared on every core: each comparison reads a dozen strings scattered over the
    /// heap, and that waiting, not the comparing, is what a republish of 100,000 entries spends.
    private func differing(_ entries: [CatalogEntry], _ expected: [Int32]) -> [Int] {
        let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, entries.count / 8192))
        let per = (entries.count + lanes - 1) / lanes
        let found = Mutex<[Int]>([])
        let flat = self.flat
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            var mine: [Int] = []
            entries.withUnsafeBufferPointer { entries in
                flat.withUnsafeBufferPointer { flat in
                    for i in min(entries.count, lane * per) ..< min(entries.count, (lane + 1) * per) {
                        let e = Int(expected[i])
                        if e < 0 || !flat[e].isIdentical(to: entries[i]) { mine.append(i) }
                    }
                }
            }
            found.withLock { $0.append(contentsOf: mine) }
        }
        return found.withLock { $0 }
    }
}
