import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

@Suite struct CatalogPartitionTests {
    static let count = 2_000
    static let entries = (0..<count).map { generatedEntry($0) }
    /// Built once for the suite: a partition of 2,000 entries takes seconds in a debug build.
    static let built: CatalogPartition.Built = try! CatalogPartition.build(entries)

    @Test func depthKeepsLeavesSmallAndTheTreeShallow() {
        #expect(CatalogPartition.depth(forCount: 1) == 1)
        #expect(CatalogPartition.depth(forCount: 1_000) == 2)
        #expect(CatalogPartition.depth(forCount: 10_000) == 3)
        #expect(CatalogPartition.depth(forCount: 100_000) == 4)
        #expect(CatalogPartition.depth(forCount: 1_000_000) == 5)
    }

    /// Item 4's half that is the format's: one changed entry changes its leaf and the nodes above
    /// it, nothing else, so a republish writes `depth + 1` parts and caches keep the rest.
    @Test func oneChangedEntryChangesOnlyThePathToIt() throws {
        let before = Self.built
        var changed = Self.entries
        changed[1234] = generatedEntry(1234, version: "2")
        let after = try CatalogPartition.build(changed)
        let new = Set(after.stored.keys).subtracting(before.stored.keys)
        #expect(before.parts.depth == 3)
        #expect(new.count == before.parts.depth + 1)
        #expect(after.parts.root != before.parts.root)
        #expect(Set(before.stored.keys).subtracting(after.stored.keys).count == before.parts.depth + 1)
    }

    @Test func aWalkReadsOnlyThePathToTheIDsAskedFor() throws {
        let built = Self.built
        let walk = try CatalogPartWalk.entries(of: built.parts, ids: ["book-7", "book-1999", "no-such-book"]) { built.stored[$0] }
        #expect(Set(walk.entries.map(\.id)) == ["book-7", "book-1999"])
        #expect(walk.read.count <= 1 + 3 * built.parts.depth)
        let all = try CatalogPartWalk.entries(of: built.parts, ids: nil) { built.stored[$0] }
        #expect(all.entries.count == Self.count)
        #expect(all.read.count == built.stored.count)
    }

    @Test func entriesOfOneIDShareALeaf() throws {
        var beta = generatedEntry(5, version: "3")
        beta.title = "beta channel"
        let built = try CatalogPartition.build([generatedEntry(5, version: "2"), beta] + (0..<50).map { generatedEntry(1000 + $0) })
        let walk = try CatalogPartWalk.entries(of: built.parts, ids: ["book-5"]) { built.stored[$0] }
        #expect(walk.entries.map(\.version.description) == ["2", "3"])
        #expect(walk.read.count == built.parts.depth + 1)
    }

    @Test func aPartWithOtherBytesIsRefusedByItsHash() throws {
        let built = Self.built
        let victim = try #require(built.stored.keys.first { $0 != built.parts.root })
        var tampered = built.stored[victim]!
        tampered[tampered.count / 2] ^= 0x01
        #expect(throws: FormatError.hashMismatch(member: victim.path, expected: victim.digest.hex, actual: SHA256.digest(tampered).hex)) {
            _ = try CatalogPartWalk.entries(of: built.parts, ids: nil) { $0 == victim ? tampered : built.stored[$0] }
        }
    }

    /// Mix and match: the top document of one version with a part of another at the same place.
    @Test func aPartOfAnotherVersionIsRefused() throws {
        let old = Self.built
        var changed = Self.entries
        changed[42] = generatedEntry(42, version: "2")
        let new = try CatalogPartition.build(changed)
        let newLeafPath = try CatalogPartWalk.entries(of: new.parts, ids: ["book-42"]) { new.stored[$0] }.read.map(\.ref)
        let oldLeafPath = try CatalogPartWalk.entries(of: old.parts, ids: ["book-42"]) { old.stored[$0] }.read.map(\.ref)
        let (newLeaf, oldLeaf) = (newLeafPath.last!, oldLeafPath.last!)
        let served = old.stored[oldLeaf]!
        let refusal = #expect(throws: FormatError.self) {
            _ = try CatalogPartWalk.entries(of: new.parts, ids: ["book-42"]) { $0 == newLeaf ? served : new.stored[$0] }
        }
        // Of two leaves of equal length the hash decides, of two others the size already does.
        let expected: FormatError = Int64(served.count) == newLeaf.size
            ? .hashMismatch(member: newLeaf.path, expected: newLeaf.digest.hex, actual: SHA256.digest(served).hex)
            : .sizeMismatch(member: newLeaf.path, expected: newLeaf.size, actual: Int64(served.count))
        #expect(refusal == expected)
    }

    @Test func aLeafHoldingAnEntryOfAnotherPrefixIsRefused() throws {
        let stray = generatedEntry(1)
        let key = CatalogPart.key(of: stray.id)
        let wrongPrefix = key.hasPrefix("0") ? "1" : "0"
        let leaf = try CatalogPart.leaf(prefix: wrongPrefix, entries: [stray]).stored()
        let leafRef = PartRef(stored: leaf)
        let root = try CatalogPart.node(prefix: "", children: [wrongPrefix: leafRef]).stored()
        let parts = CatalogParts(count: 1, depth: 1, root: PartRef(stored: root))
        let store = [parts.root: root, leafRef: leaf]
        #expect(throws: FormatError.malformed(what: leafRef.path, reason: "entry book-1 does not belong in the leaf of prefix \(wrongPrefix)")) {
            _ = try CatalogPartWalk.entries(of: parts, ids: nil) { store[$0] }
        }
    }

    @Test func gzipRoundTripsAndRefusesTrailingBytesAndBombs() throws {
        let text = Data(String(repeating: "catalog part ", count: 1000).utf8)
        let packed = try Gzip.compress(text)
        #expect(try Gzip.compress(text) == packed)
        #expect(try Gzip.decompress(packed, limit: text.count, what: "p") == text)
        #expect(throws: FormatError.sizeExceeded(member: "p", limit: 100)) { _ = try Gzip.decompress(packed, limit: 100, what: "p") }
        #expect(throws: FormatError.self) { _ = try Gzip.decompress(packed + Data([0]), limit: text.count, what: "p") }
    }
}
