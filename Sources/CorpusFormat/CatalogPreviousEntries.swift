import Foundation

/// The entries of the catalog version a publisher's record (`CatalogPartIndex`) describes, which
/// the publisher holds anyway (`corpusd publish` reads them for its history checks), grouped by
/// id: a republish compares its entries with these by value (`CatalogEntry.isIdentical`) to find
/// the buckets that changed, instead of encoding every entry as JSON (docs/format.md "What a
/// republish builds").
///
/// Tied to one version: `version` and `root` say which top document's trie the entries were read
/// through (or, in the bench, generated for), and `CatalogPartWriter` uses them only with a record
/// of that very version and root; any other pair means the digest path, never a guess.
public struct CatalogPreviousEntries: Sendable {
    public let version: Int
    public let root: PartRef
    public let count: Int
    /// Every entry of one id in the order the version listed them (a leaf keeps that order).
    let byID: [String: [CatalogEntry]]

    public init(version: Int, root: PartRef, entries: [CatalogEntry]) {
        self.version = version
        self.root = root
        count = entries.count
        var byID: [String: [CatalogEntry]] = [:]
        byID.reserveCapacity(entries.count)
        for e in entries { byID[e.id, default: []].append(e) }
        self.byID = byID
    }

    /// True when `entries[positions]`, runs of one id each (as a leaf or a listing part holds
    /// them), are the version's entries of those ids, the same in number, order and bytes. The
    /// caller checks that the bucket held as many entries (no id left it).
    func unchanged(_ positions: [Int], of entries: [CatalogEntry]) -> Bool {
        // Through buffers: an array's subscript here copied each entry (a retain a field).
        entries.withUnsafeBufferPointer { entries in
            var i = 0
            while i < positions.count {
                guard let before = byID[entries[positions[i]].id] else { return false }
                let same = before.withUnsafeBufferPointer { before in
                    for k in before.indices {
                        guard i < positions.count, before[k].isIdentical(to: entries[positions[i]]) else { return false }
                        i += 1
                    }
                    return !(i < positions.count && entries[positions[i]].id == before[0].id)
                }
                guard same else { return false }
            }
            return true
        }
    }
}
