import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// Listing parts (docs/format.md "Listing parts"): cut where the ids say, so a change to one
/// corpus renames one listing part (and the index), whichever corpus and however it changed.
@Suite struct ListingPartitionTests {
    static let entries = (0..<3_000).map { generatedEntry($0) }
    static let built: ListingPartition.Built = try! ListingPartition.build(entries)

    /// The listing parts' rows, read back through the checked reader, in order.
    static func rows(_ b: ListingPartition.Built) throws -> [ListingRow] {
        let index = try ListingDocument.index(stored: try #require(b.stored[b.listing.index]), ref: b.listing.index)
        #expect(index == b.parts)
        return try index.flatMap { try ListingDocument.rows(stored: try #require(b.stored[$0.part]), ref: $0) }
    }

    @Test func rowsKeepTheCatalogsOrderAndEndAtBoundaryIDs() throws {
        #expect(try Self.rows(Self.built).map(\.id) == Self.entries.map(\.id))
        #expect(Self.built.listing.count == Self.entries.count && Self.built.parts.count > 1)
        var n = 0
        for part in Self.built.parts.dropLast() {
            n += part.rows
            #expect(ListingPartition.isBoundary(Self.entries[n - 1].id))
        }
    }

    /// A changed corpus, an added one and a removed one: each renames the part that holds it and
    /// the index, no other part (unless the id is a boundary, which splits or merges two).
    @Test func oneChangedCorpusChangesOneListingPart() throws {
        let before = Set(Self.built.parts)
        var changed = Self.entries
        changed[1234] = generatedEntry(1234, version: "2")
        var added = Self.entries
        added.insert(generatedEntry(9_999_999), at: 777)
        var removed = Self.entries
        let plain = try #require((1500..<2000).first { !ListingPartition.isBoundary(Self.entries[$0].id) })
        removed.remove(at: plain)
        for catalog in [changed, added, removed] {
            let after = try ListingPartition.build(catalog)
            let new = Set(after.parts).subtracting(before)
            #expect(new.count == 1, "\(new.count) listing parts changed")
            #expect(after.parts.count == Self.built.parts.count)
            #expect(after.listing.index != Self.built.listing.index)
            #expect(try Self.rows(after).map(\.id) == catalog.map(\.id))
        }
    }

    /// Entries of one id (channels) stay in one part, where the id first appears.
    @Test func entriesOfOneIDShareAPart() throws {
        var channels = Self.entries
        var beta = generatedEntry(5, version: "2")
        beta.channel = "beta"
        channels.append(beta)
        let rows = try Self.rows(try ListingPartition.build(channels))
        #expect(rows[5].id == "book-5" && rows[6].id == "book-5" && rows[6].channel == "beta")
    }

    @Test func aListingPartWithOtherBytesOrAnotherRowCountIsRefused() throws {
        let part = Self.built.parts[0]
        var bytes = try #require(Self.built.stored[part.part])
        bytes[bytes.count - 9] ^= 0x20
        #expect(throws: FormatError.self) { try ListingDocument.rows(stored: bytes, ref: part) }
        let genuine = try #require(Self.built.stored[part.part])
        #expect(throws: FormatError.self) { try ListingDocument.rows(stored: genuine, ref: ListingPartRef(part: part.part, rows: part.rows + 1)) }
        // An index where a part is named: kinds are not interchangeable.
        #expect(throws: FormatError.self) { try ListingDocument.index(stored: genuine, ref: part.part) }
    }
}
