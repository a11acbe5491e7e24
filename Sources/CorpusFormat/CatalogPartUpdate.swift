import Foundation

/// A republish of a catalog that lists the same corpora in the same order as the version the
/// publisher's record describes, some of them changed (docs/format.md "What a republish builds"):
/// only the leaves that hold a changed corpus, the nodes above them, the listing parts that hold
/// one and the listing index are built; every other part, and its bucket in the record, stands
/// without being read. What it builds is byte for byte what a full build of the same entries
/// builds (`CatalogPartition`, `ListingPartition`). Pure: the caller writes the parts.
///
/// It gives up (nil) whenever that would not hold without looking at the whole catalog: an id
/// added or removed, the ids in another order, a listing part that would end elsewhere, a part
/// of the record the tree does not hold as recorded. The caller then builds in full.
public enum CatalogPartUpdate {
    public struct Updated: Sendable {
        public var parts: CatalogParts
        public var listing: CatalogListing
        /// The parts built, by reference, with their stored bytes.
        public var stored: [PartRef: Data]
        /// The record of the new version, patched from the last one, with the parts this version
        /// stopped naming added to its replaced parts.
        public var record: CatalogPartRecordFile
        /// Buckets whose parts stand: every other one.
        public var reused: Int
        public var entryBytes: Int64
    }

    /// `readPart` gives a recorded part's stored bytes (nil when the tree lacks it); `since` is the
    /// version being written.
    public static func update(_ entries: [CatalogEntry], version: Int, record: CatalogPartRecordFile, previous: CatalogPreviousEntries,
                              readPart: (PartRef) -> Data?) throws -> Updated? {
        guard version > record.version, previous.version == record.version, previous.root == record.root, previous.count == record.count,
              entries.count == record.count, let changes = previous.changes(in: entries), changes.order == record.order else { return nil }
        var file = record
        var stored: [PartRef: Data] = [:]
        var replaced = record.replaced
        var built = 0
        let digester = CatalogPartIndex.Digester()
        /// The part for a bucket: the recorded one when its digest matches, else built.
        func part(_ digest: SHA256Digest, recorded: CatalogPartIndex.Bucket, place: CatalogPartIndex.Replaced.Place,
                  _ make: () -> CatalogPart) throws -> CatalogPartIndex.Bucket {
            guard digest != recorded.digest else { return recorded }
            let bytes = try make().stored()
            let ref = PartRef(stored: bytes)
            stored[ref] = bytes
            built += 1
            replaced.append(.init(part: recorded.part, since: recorded.since, until: version, place: place))
            return .init(digest: digest, part: ref, since: version)
        }

        // The leaves holding a changed group: each entry of the leaf's other ids is the last
        // version's (unchanged), read from the leaf's part as it stands.
        let depth = record.depth
        var byLeaf: [Int: [Int]] = [:]
        for g in changes.groups.keys {
            byLeaf[CatalogPartIndex.slot(prefix: CatalogPart.keyPrefix(of: previous.flat[previous.start[g]].id, digits: depth)), default: []].append(g)
        }
        var entryBytes = record.entryBytes
        var level: [Int: PartRef] = [:]
        for (slot, groups) in byLeaf {
            guard let i = record.leafIndex(slot: slot) else { return nil }
            let recorded = record.leaf(at: i).bucket
            let prefix = CatalogPartIndex.prefix(slot: slot, digits: depth)
            guard let bytes = readPart(recorded.part), let old = try? CatalogPart.decode(stored: bytes, ref: recorded.part),
                  old.kind == .leaf, old.prefix == prefix, let held = old.entries, held.count == recorded.entries else { return nil }
            let changedIDs = Dictionary(uniqueKeysWithValues: groups.map { (previous.flat[previous.start[$0]].id, $0) })
            var leaf: [CatalogEntry] = []
            var found = 0
            var k = 0
            while k < held.count {
                let id = held[k].id
                var end = k + 1
                while end < held.count && held[end].id == id { end += 1 }
                if let g = changedIDs[id] {
                    leaf.append(contentsOf: changes.groups[g]!.map { entries[$0] })
                    found += 1
                } else {
                    leaf.append(contentsOf: held[k ..< end])
                }
                k = end
            }
            guard found == groups.count else { return nil }
            let (digest, size) = try digester.digestAndSize(kind: "leaf", prefix: prefix, leaf)
            var bucket = try part(digest, recorded: recorded, place: .leaf(slot: slot)) { .leaf(prefix: prefix, entries: leaf) }
            bucket.entries = leaf.count
            bucket.bytes = size
            entryBytes += size - recorded.bytes
            file.setLeaf(at: i, bucket)
            level[slot] = bucket.part
        }

        // The nodes above them, level by level: each child from this update or the record.
        for length in stride(from: depth - 1, through: 0, by: -1) {
            var parents: Set<Int> = []
            for slot in level.keys { parents.insert(slot >> 4) }
            var next: [Int: PartRef] = [:]
            for slot in parents {
                guard let i = record.nodeIndex(level: length, slot: slot) else { return nil }
                var children: [String: PartRef] = [:]
                for digit in 0..<16 {
                    let child = slot << 4 | digit
                    if let ref = level[child] {
                        children[String(digit, radix: 16)] = ref
                    } else if length + 1 == depth {
                        if let c = record.leafIndex(slot: child) { children[String(digit, radix: 16)] = record.leaf(at: c).bucket.part }
                    } else if let c = record.nodeIndex(level: length + 1, slot: child) {
                        children[String(digit, radix: 16)] = record.node(at: c).bucket.part
                    }
                }
                let prefix = CatalogPartIndex.prefix(slot: slot, digits: length)
                let recorded = record.node(at: i).bucket
                let bucket = try part(CatalogPartIndex.nodeDigest(prefix: prefix, children: children), recorded: recorded,
                                      place: .node(level: length, slot: slot)) { .node(prefix: prefix, children: children) }
                file.setNode(at: i, bucket)
                next[slot] = bucket.part
            }
            level = next
        }
        let root = level[0] ?? record.root

        // The listing parts holding a changed group, found by the place its id first appears.
        var firstOrdinal: [Int] = [0]
        for i in 0..<record.listingCount { firstOrdinal.append(firstOrdinal.last! + record.listing(at: i).idCount) }
        guard firstOrdinal.last == changes.groupAtOrdinal.count else { return nil }
        var affected = Set<Int>()
        for o in changes.ordinal.values {
            var low = 0, high = record.listingCount - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if firstOrdinal[mid] <= o { low = mid } else { high = mid - 1 }
            }
            affected.insert(low)
        }
        for j in affected.sorted() {
            let recorded = record.listing(at: j)
            var rows: [ListingRow] = []
            var ids: [String] = []
            var bytes = 0
            for o in firstOrdinal[j] ..< firstOrdinal[j + 1] {
                let g = Int(changes.groupAtOrdinal[o])
                let group: [CatalogEntry] = changes.groups[g].map { $0.map { entries[$0] } } ?? Array(previous.entries(ofGroup: g))
                for e in group {
                    rows.append(ListingRow(e))
                    ids.append(e.id)
                    bytes += ListingRow.textBytes(of: e)
                }
                // Where a full build would end a part (`ListingPartition.build`): the same place, or give up.
                let ends = ListingPartition.isBoundary(group[0].id) || rows.count >= ListingPartition.maxRows || bytes >= ListingPartition.maxRowBytes
                let last = o == firstOrdinal[j + 1] - 1
                guard ends == last || (last && j == record.listingCount - 1) else { return nil }
            }
            let digest = try digester.digest(kind: "listing", prefix: "", rows)
            var bucket = recorded
            bucket.ids = CatalogPartIndex.idsDigest(ids)
            bucket.rowCount = rows.count
            if digest != recorded.rows {
                let data = try ListingDocument.part(rows).stored()
                bucket.part = PartRef(stored: data)
                bucket.rows = digest
                bucket.since = version
                stored[bucket.part] = data
                built += 1
                replaced.append(.init(part: recorded.part, since: recorded.since, until: version, place: .listing))
            }
            file.setListing(at: j, bucket)
        }
        let refs = (0..<record.listingCount).map { i in
            let b = file.listing(at: i)
            return ListingPartRef(part: b.part, rows: b.rowCount)
        }
        let index = try ListingDocument.index(refs).stored()
        let indexRef = PartRef(stored: index)
        var indexSince = record.listingIndexSince
        if indexRef != record.listingIndex {
            stored[indexRef] = index
            replaced.append(.init(part: record.listingIndex, since: record.listingIndexSince, until: version, place: .listingIndex))
            indexSince = version
        }
        file.setHeader(version: version, root: root, entryBytes: entryBytes, listingIndex: indexRef, listingIndexSince: indexSince)
        file.setReplaced(replaced)
        let total = record.leafCount + record.nodeCount + record.listingCount
        return Updated(parts: CatalogParts(count: entries.count, depth: depth, root: root),
                       listing: CatalogListing(count: entries.count, index: indexRef), stored: stored, record: file,
                       reused: total - built, entryBytes: entryBytes)
    }
}
