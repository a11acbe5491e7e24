import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The publisher's binary record (`.catalog-parts` format 3): what it writes it reads back, a
/// bucket patched in place is read back so and moves nothing else, and bytes of any other shape
/// are not read (a full build follows, never a guess).
@Suite struct CatalogPartRecordFileTests {
    static func record() throws -> CatalogPartIndex {
        let entries = (0..<300).map { generatedEntry($0) }
        let built = try CatalogPartition.build(entries)
        let listing = try ListingPartition.build(entries, target: 16)
        var index = CatalogPartIndex.after(nil, version: 3, parts: built, listing: listing, order: CatalogPartIndex.OrderDigest.of(entries),
                                           written: Set(built.stored.keys.map { ($0.path as NSString).lastPathComponent }))
        index.replaced = [.init(part: built.parts.root, since: 0, until: 2, place: .node(level: 0, slot: 0)),
                          .init(part: listing.listing.index, since: 1, until: 3, place: .listingIndex)]
        return index
    }

    @Test func whatIsWrittenIsReadBack() throws {
        let index = try Self.record()
        let file = CatalogPartRecordFile(index)
        #expect(file.index() == index)
        #expect(index.leaves.values.allSatisfy { $0.since == 3 })
        let reread = try #require(CatalogPartRecordFile(file.data))
        #expect(reread.index() == index)
        // Every leaf is found by its slot, every node by its level and slot.
        for (prefix, bucket) in index.leaves {
            let i = try #require(reread.leafIndex(slot: CatalogPartIndex.slot(prefix: prefix)))
            #expect(reread.leaf(at: i).bucket == bucket)
        }
        for (prefix, bucket) in index.nodes {
            let i = try #require(reread.nodeIndex(level: prefix.count, slot: CatalogPartIndex.slot(prefix: prefix)))
            #expect(reread.node(at: i).bucket == bucket)
        }
        #expect(reread.leafIndex(slot: 0xfff) == nil || index.leaves["fff"] != nil)
    }

    @Test func aBucketPatchedInPlaceChangesThatBucketOnly() throws {
        let index = try Self.record()
        var file = CatalogPartRecordFile(index)
        let (prefix, old) = try #require(index.leaves.min { $0.key < $1.key })
        let i = try #require(file.leafIndex(slot: CatalogPartIndex.slot(prefix: prefix)))
        let ref = PartRef(stored: Data("another leaf".utf8))
        let bucket = CatalogPartIndex.Bucket(digest: SHA256.digest(Data("x".utf8)), part: ref, entries: old.entries + 1, bytes: old.bytes + 9, since: 4)
        file.setLeaf(at: i, bucket)
        file.setReplaced([])
        var expected = index
        expected.leaves[prefix] = bucket
        expected.replaced = []
        #expect(file.index() == expected)
        #expect(CatalogPartRecordFile(file.data)?.index() == expected)
    }

    @Test func bytesOfAnyOtherShapeAreNotRead() throws {
        let data = CatalogPartRecordFile(try Self.record()).data
        #expect(CatalogPartRecordFile(data.dropLast()) == nil)
        #expect(CatalogPartRecordFile(data + Data([0])) == nil)
        var format2 = data
        format2.replaceSubrange(0..<16, with: Array("catalog-parts 2\n".utf8))
        #expect(CatalogPartRecordFile(format2) == nil)
        #expect(CatalogPartRecordFile(Data("catalog-parts 3\n".utf8)) == nil)
        // A count larger than the file: refused, not read past the end.
        var huge = data
        huge.replaceSubrange(72..<80, with: withUnsafeBytes(of: Int64(1 << 40).littleEndian) { Array($0) })
        #expect(CatalogPartRecordFile(huge) == nil)
    }
}
