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
    /// Counted by `ListingRow.textBytes`, the text fields' bytes: a guard on size, not the JSON's exact length.
    public static let maxRowBytes = 2 * 1024 * 1024

    /// The listing of a catalog: the top document's `listing` value and every stored part, the index included.
    public struct Built: Sendable {
        public var listing: CatalogListing
        public var stored: [PartRef: Data]
        /// The listing parts in order.
        public var parts: [ListingPartRef]
        /// Every listing part by the digest of its rows (`CatalogPartIndex`).
        public var digests: [SHA256Digest: PartRef] = [:]
        /// Parts named from `reuse` rather than built.
        public var reused = 0
    }

    /// True when a part ends after the entries of `id`: the key's last eight hex digits, a number,
    /// divisible by `target`. The key's end, not its start, so boundaries do not follow the trie's leaves.
    public static func isBoundary(_ id: String, target: Int = targetRows) -> Bool {
        let key = CatalogPart.key(of: id)
        return UInt32(key.suffix(8), radix: 16)! % UInt32(target) == 0
    }

    /// With `reuse` (the publisher's record of listing parts by the digest of their rows), a part
    /// whose rows it records keeps that part when `holds` says the tree has it; the rest are built.
    /// The index is always built: it is one small part.
    public static func build(_ entries: [CatalogEntry], target: Int = targetRows, reuse: [SHA256Digest: PartRef] = [:],
                             holds: (PartRef) -> Bool = { _ in false }) throws -> Built {
        // Entries of one id together, where the id first appears (the order `ChannelSelection` offers in),
        // so a reader picks each id's version from one part.
        var groups: [String: [CatalogEntry]] = [:]
        var order: [String] = []
        for e in entries {
            if groups[e.id] == nil { order.append(e.id) }
            groups[e.id, default: []].append(e)
        }
        var stored: [PartRef: Data] = [:]
        var refs: [ListingPartRef] = []
        var rows: [ListingRow] = []
        var bytes = 0
        var digests: [SHA256Digest: PartRef] = [:]
        var reused = 0
        let digester = CatalogPartIndex.Digester()
        func flush() throws {
            guard !rows.isEmpty else { return }
            let digest = try digester.digest(kind: "listing", prefix: "", rows)
            let ref: PartRef
            if let recorded = reuse[digest], holds(recorded) {
                ref = recorded
                reused += 1
            } else {
                let data = try ListingDocument.part(rows).stored()
                ref = PartRef(stored: data)
                stored[ref] = data
            }
            digests[digest] = ref
            refs.append(ListingPartRef(part: ref, rows: rows.count))
            rows = []
            bytes = 0
        }
        for id in order {
            for e in groups[id]! {
                let row = ListingRow(e)
                rows.append(row)
                bytes += row.textBytes
            }
            if isBoundary(id, target: target) || rows.count >= maxRows || bytes >= maxRowBytes { try flush() }
        }
        try flush()
        let index = try ListingDocument.index(refs).stored()
        let indexRef = PartRef(stored: index)
        stored[indexRef] = index
        return Built(listing: CatalogListing(count: entries.count, index: indexRef), stored: stored, parts: refs, digests: digests, reused: reused)
    }
}
