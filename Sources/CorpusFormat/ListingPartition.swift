import Foundation

/// Cuts a catalog's entries into listing parts (docs/format.md "Listing parts"). Pure: the caller
/// writes the parts it does not have yet.
///
/// Rows keep the catalog's order, so a listing reads as the flat catalog lists. Where a part ends
/// depends on the ids themselves, not on positions (content-defined chunking, as in rsync's rolling
/// boundaries or a prolly tree): a part ends after the entries of an id whose key is a boundary.
/// So changing a corpus's fields changes only the part that holds it, and adding or removing one
/// changes that part alone (or merges or splits two at a boundary id), whatever the catalog's size;
/// fixed-size parts would shift every part after the change.
public enum ListingPartition {
    /// Mean rows a part: one id in `targetRows` is a boundary.
    public static let targetRows = 512
    /// A part is also cut at this many rows, or once its rows hold `maxRowBytes` bytes of text, so a
    /// long run without a boundary (probability e^-8 at 8 × the mean) or long descriptions cannot
    /// make a part a reader refuses. Such a cut moves with the rows before it, but only until the
    /// next boundary id.
    public static let maxRows = 8 * targetRows
    /// Counted by `ListingRow.textBytes(of:)`, the text fields' bytes: a guard on size, not the JSON's exact length.
    public static let maxRowBytes = 2 * 1024 * 1024

    /// The listing of a catalog: the top document's `listing` value and every stored part, the index included.
    public struct Built: Sendable {
        public var listing: CatalogListing
        public var stored: [PartRef: Data]
        /// The listing parts in order.
        public var parts: [ListingPartRef]
        /// Every listing part in order, with the digests of its ids and rows (`CatalogPartIndex`);
        /// `since` is the record's for a part reused from it, else 0.
        public var buckets: [CatalogPartIndex.ListingBucket] = []
        /// Parts named from `reuse` rather than built.
        public var reused = 0
    }

    /// True when a part ends after the entries of `id`: the key's last eight hex digits, a number,
    /// divisible by `target`. The key's end, not its start, so boundaries do not follow the trie's leaves.
    public static func isBoundary(_ id: String, target: Int = targetRows) -> Bool {
        // The key's last eight hex digits are its last four bytes, big-endian.
        let tail = CatalogPart.keyBytes(of: id)[28...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return tail % UInt32(target) == 0
    }

    /// With `reuse` (the publisher's record of listing parts by the digest of their ids), a part
    /// whose rows it records keeps that part when `holds` says the tree has it; the rest are built.
    /// With `previous` too (the record's version's entries), a part whose ids the record has is
    /// compared with them by value and not digested when its entries are the same; otherwise its
    /// rows are digested and looked up by that digest. The index is always built: it is one small part.
    public static func build(_ entries: [CatalogEntry], target: Int = targetRows, reuse: [CatalogPartIndex.ListingBucket] = [],
                             previous: CatalogPreviousEntries? = nil, holds: (PartRef) -> Bool = { _ in false }) throws -> Built {
        // Entries of one id together, where the id first appears (the order `ChannelSelection` offers in),
        // so a reader picks each id's version from one part. Positions, chained by id: no array an id.
        var chain: [String: (first: Int, last: Int)] = [:]
        chain.reserveCapacity(entries.count)
        var next = [Int](repeating: -1, count: entries.count)
        var first = [Bool](repeating: false, count: entries.count)
        for i in entries.indices {
            if let c = chain[entries[i].id] {
                next[c.last] = i
                chain[entries[i].id] = (c.first, i)
            } else {
                chain[entries[i].id] = (i, i)
                first[i] = true
            }
        }
        let byIDs = Dictionary(reuse.map { ($0.ids, $0) }, uniquingKeysWith: { a, _ in a })
        let byRows = Dictionary(reuse.map { ($0.rows, $0) }, uniquingKeysWith: { a, _ in a })
        var stored: [PartRef: Data] = [:]
        var refs: [ListingPartRef] = []
        var chunk: [Int] = []
        var chunkIDs = 0
        var bytes = 0
        var buckets: [CatalogPartIndex.ListingBucket] = []
        var reused = 0
        let digester = CatalogPartIndex.Digester()
        func flush() throws {
            guard !chunk.isEmpty else { return }
            let ids = CatalogPartIndex.idsDigest(chunk.lazy.map { entries[$0].id })
            let bucket: CatalogPartIndex.ListingBucket
            if let previous, let recorded = byIDs[ids], previous.unchanged(chunk, of: entries), holds(recorded.part) {
                bucket = recorded
                reused += 1
            } else {
                let rows = chunk.map { ListingRow(entries[$0]) }
                let digest = try digester.digest(kind: "listing", prefix: "", rows)
                if let recorded = byRows[digest], holds(recorded.part) {
                    bucket = .init(ids: ids, rows: digest, part: recorded.part, rowCount: chunk.count, idCount: chunkIDs, since: recorded.since)
                    reused += 1
                } else {
                    let data = try ListingDocument.part(rows).stored()
                    bucket = .init(ids: ids, rows: digest, part: PartRef(stored: data), rowCount: chunk.count, idCount: chunkIDs)
                    stored[bucket.part] = data
                }
            }
            buckets.append(bucket)
            refs.append(ListingPartRef(part: bucket.part, rows: chunk.count))
            chunk = []
            chunkIDs = 0
            bytes = 0
        }
        for i in entries.indices where first[i] {
            var j = i
            chunkIDs += 1
            while j >= 0 {
                chunk.append(j)
                bytes += ListingRow.textBytes(of: entries[j])
                j = next[j]
            }
            if isBoundary(entries[i].id, target: target) || chunk.count >= maxRows || bytes >= maxRowBytes { try flush() }
        }
        try flush()
        let index = try ListingDocument.index(refs).stored()
        let indexRef = PartRef(stored: index)
        stored[indexRef] = index
        return Built(listing: CatalogListing(count: entries.count, index: indexRef), stored: stored, parts: refs, buckets: buckets, reused: reused)
    }
}
