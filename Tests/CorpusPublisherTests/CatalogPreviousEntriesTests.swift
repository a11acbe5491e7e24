import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// A republish that compares its entries with the previous version's by value
/// (`CatalogPreviousEntries`) instead of digesting every bucket as JSON (issue 31 item 4): it
/// builds only the changed buckets, writes byte for byte what a full build writes, and trusts the
/// previous entries only when they are of the version and trie root the tree's record describes.
@Suite struct CatalogPreviousEntriesTests {
    typealias Reuse = CatalogPartReuseTests

    /// Version 1 of `entries` written to `tree`, and those entries tied to it.
    static func first(_ entries: [CatalogEntry], key: SecretKey, tree: String) throws -> CatalogPreviousEntries {
        let written = try CatalogPartWriter.write(Reuse.catalog(entries, version: 1), key: key, tree: tree)
        return CatalogPreviousEntries(version: 1, root: try #require(written.top.parts).root, entries: entries)
    }

    /// The same catalog written into a new tree from nothing: its top document and parts.
    static func expectSameAsFullBuild(_ catalog: Catalog, key: SecretKey, tree: String) throws {
        let full = try Reuse.tree("full")
        _ = try CatalogPartWriter.write(catalog, key: key, tree: full.path)
        #expect(try Reuse.top(catalog.version, tree) == Reuse.top(catalog.version, full.path))
        let held = try Reuse.parts(tree)
        for (name, bytes) in try Reuse.parts(full.path) { #expect(held[name] == bytes, "part \(name)") }
        // The record holds the same buckets (a patched one as much as a rebuilt one).
        #expect(try Reuse.buckets(tree) == Reuse.buckets(full.path))
    }

    /// A republish of the same corpora in the same order builds only what holds the changed ones
    /// (`CatalogPartUpdate`), and its record lists the parts it stopped naming, since when they
    /// were named. Another order, or a corpus added or removed, is built in full (and is the same).
    @Test func onlyAChangeOfTheSameCorporaInTheSameOrderIsAnUpdate() throws {
        let key = try SecretKey.generate()
        var entries = Reuse.entries
        // Two channels of one id, so a group of several entries takes the update too.
        var beta = entries[10]
        beta.channel = "beta"
        entries.insert(beta, at: 500)
        let tree = try Reuse.tree("update")
        var previous = try Self.first(entries, key: key, tree: tree.path)
        var changed = entries
        changed[10].title = "Changed title"
        changed[500].description = "The beta channel, described again"
        let written = try CatalogPartWriter.write(Reuse.catalog(changed, version: 2), key: key, tree: tree.path, previous: previous)
        #expect(written.updated)
        try Self.expectSameAsFullBuild(Reuse.catalog(changed, version: 2), key: key, tree: tree.path)
        let record = try #require(CatalogPartIndex.load(tree: tree.path))
        let depth = CatalogPartition.depth(forCount: changed.count)
        // One leaf, the nodes above it, the listing part or parts that hold the two rows, the index.
        let replaced = record.replaced
        #expect(replaced.allSatisfy { $0.since == 1 && $0.until == 2 })
        #expect(replaced.filter { if case .leaf = $0.place { true } else { false } }.count == 1)
        #expect(replaced.filter { if case .node = $0.place { true } else { false } }.count == depth)
        #expect(replaced.contains { $0.place == .listingIndex })
        #expect(Set(replaced.map(\.part)).isDisjoint(with: try #require(CatalogPartRecordFile.load(tree: tree.path)).parts))

        // Another order, a corpus added, a corpus removed: each built in full, and still what a
        // full build writes.
        var (last, top) = (changed, try #require(written.top.parts).root)
        let steps: [(String, ([CatalogEntry]) -> [CatalogEntry])] = [
            ("another order", { Array($0.reversed()) }),
            ("a corpus added", { $0 + [generatedEntry(Reuse.count + 7)] }),
            ("a corpus removed", { Array($0.dropFirst()) }),
        ]
        for (version, (what, step)) in zip(3..., steps) {
            previous = CatalogPreviousEntries(version: version - 1, root: top, entries: last)
            let next = step(last)
            let full = try CatalogPartWriter.write(Reuse.catalog(next, version: version), key: key, tree: tree.path, previous: previous)
            #expect(!full.updated, "\(what)")
            try Self.expectSameAsFullBuild(Reuse.catalog(next, version: version), key: key, tree: tree.path)
            (last, top) = (next, try #require(full.top.parts).root)
        }
    }

    /// A leaf part the record names but the tree lost (or holds altered) cannot be read for the
    /// entries it keeps: the update gives up and the full build writes it again.
    @Test func anUpdateWhoseLeafIsMissingIsBuiltInFull() throws {
        let key = try SecretKey.generate()
        let tree = try Reuse.tree("lost-leaf")
        let previous = try Self.first(Reuse.entries, key: key, tree: tree.path)
        let record = try #require(CatalogPartIndex.load(tree: tree.path))
        let leaf = try #require(record.leaves[CatalogPart.keyPrefix(of: Reuse.entries[321].id, digits: record.depth)])
        try FileIO.writeAtomically(Data("altered".utf8), to: "\(tree.path)/\(leaf.part.path)")
        var changed = Reuse.entries
        changed[321] = generatedEntry(321, version: "2")
        let written = try CatalogPartWriter.write(Reuse.catalog(changed, version: 2), key: key, tree: tree.path, previous: previous)
        #expect(!written.updated)
        try Self.expectSameAsFullBuild(Reuse.catalog(changed, version: 2), key: key, tree: tree.path)
    }

    @Test func aRepublishComparedWithThePreviousEntriesBuildsOnlyItsPartsAndWritesWhatAFullBuildWrites() throws {
        let key = try SecretKey.generate()
        let tree = try Reuse.tree("previous")
        let previous = try Self.first(Reuse.entries, key: key, tree: tree.path)
        var changed = Reuse.entries
        changed[321] = generatedEntry(321, version: "2")
        let next = Reuse.catalog(changed, version: 2)
        let written = try CatalogPartWriter.write(next, key: key, tree: tree.path, previous: previous)
        #expect(written.comparedWithPrevious && written.updated)
        #expect(written.parts.count == CatalogPartition.depth(forCount: Reuse.count) + 1 + 2)
        #expect(written.entryBytes == (try CatalogPartition.build(changed)).entryBytes)
        try Self.expectSameAsFullBuild(next, key: key, tree: tree.path)
    }

    /// Swift's `String ==` holds "Café" with a precomposed é equal to "Cafe" + U+0301, which JSON
    /// spells with other bytes: a title respelled so is a change, and its leaf and listing part
    /// are built again.
    @Test func aTitleRespelledInAnotherUnicodeFormIsBuiltAgain() throws {
        let key = try SecretKey.generate()
        let tree = try Reuse.tree("respelled")
        var entries = Reuse.entries
        entries[321].title = "Caf\u{E9} society"
        let previous = try Self.first(entries, key: key, tree: tree.path)
        var respelled = entries
        respelled[321].title = "Cafe\u{301} society"
        #expect(respelled[321] == entries[321], "Swift's == takes the two spellings for one")
        let next = Reuse.catalog(respelled, version: 2)
        let written = try CatalogPartWriter.write(next, key: key, tree: tree.path, previous: previous)
        #expect(written.comparedWithPrevious)
        #expect(written.parts.count == CatalogPartition.depth(forCount: Reuse.count) + 1 + 2)
        try Self.expectSameAsFullBuild(next, key: key, tree: tree.path)
    }

    /// Entries of another version than the record's (or of its number with another trie root) are
    /// not compared with: trusting version 1's entries against a record of version 2 would keep
    /// version 2's leaf for a corpus that version 3 takes back to its version-1 fields.
    @Test func previousEntriesOfAnotherVersionAreNotTrusted() throws {
        let key = try SecretKey.generate()
        let tree = try Reuse.tree("mismatch")
        let first = try Self.first(Reuse.entries, key: key, tree: tree.path)
        var second = Reuse.entries
        second[321] = generatedEntry(321, version: "2")
        let v2 = try CatalogPartWriter.write(Reuse.catalog(second, version: 2), key: key, tree: tree.path)

        let third = Reuse.catalog(Reuse.entries, version: 3)
        let written = try CatalogPartWriter.write(third, key: key, tree: tree.path, previous: first)
        #expect(!written.comparedWithPrevious)
        try Self.expectSameAsFullBuild(third, key: key, tree: tree.path)

        // The record's version number with another root: not trusted either.
        let forged = CatalogPreviousEntries(version: 3, root: try #require(v2.top.parts).root, entries: Reuse.entries)
        let fourth = try CatalogPartWriter.write(Reuse.catalog(second, version: 4), key: key, tree: tree.path, previous: forged)
        #expect(!fourth.comparedWithPrevious)
        try Self.expectSameAsFullBuild(Reuse.catalog(second, version: 4), key: key, tree: tree.path)
    }

    /// `CatalogEntry.isIdentical` names every field; a field added to the entry fails here until
    /// it is looked at there (a text field must be compared byte for byte).
    @Test func theExactComparisonKnowsEveryFieldOfAnEntry() {
        #expect(Mirror(reflecting: generatedEntry(1)).children.count == CatalogEntry.fieldsComparedExactly)
        var other = generatedEntry(1)
        other.bundle.path = "bundles/" + String(repeating: "0", count: 64) + ".corpus.zip"
        #expect(!generatedEntry(1).isIdentical(to: other))
        #expect(generatedEntry(1).isIdentical(to: generatedEntry(1)))
    }

    /// `corpusd publish` hands the writer the entries its history check read: the newest version,
    /// read whole through its trie, tied to that version and root.
    @Test func theHistoryCheckHoldsTheNewestVersionsEntriesForTheWriter() throws {
        let key = try SecretKey.generate()
        let tree = try Reuse.tree("history")
        let written = try CatalogPartWriter.write(Reuse.catalog(Reuse.entries, version: 1), key: key, tree: tree.path)
        let history = try TreeHistory.load(tree: tree.path)
        let previous = try #require(history.newestEntries)
        #expect(previous.version == 1 && previous.root == written.top.parts?.root && previous.count == Reuse.count)
        var changed = Reuse.entries
        changed[7] = generatedEntry(7, version: "2")
        let next = try CatalogPartWriter.write(Reuse.catalog(changed, version: 2), key: key, tree: tree.path, previous: previous)
        #expect(next.comparedWithPrevious)
        try Self.expectSameAsFullBuild(Reuse.catalog(changed, version: 2), key: key, tree: tree.path)
    }

    /// The real `corpusd publish` takes the comparing path: a second publish after a title changed
    /// compares with the entries its history check read, writes the changed parts only, and its
    /// top document and parts are what a full build of the same catalog writes.
    @Test func corpusdPublishComparesWithTheEntriesItsHistoryCheckRead() throws {
        let f = try TreePublisherTests.Fixture()
        let first = try f.publish()
        #expect(!first.partsComparedWithPrevious)
        let catalogJSON = try String(contentsOfFile: "\(f.catalog)/catalog.json", encoding: .utf8)
        try f.dir.write("catalog/catalog.json", catalogJSON.replacingOccurrences(of: #""title": "Tides""#, with: #""title": "Tides and currents""#))
        let second = try f.publish()
        #expect(second.partsComparedWithPrevious)
        #expect(second.catalog.corpora.first { $0.id == "tides" }?.title == "Tides and currents")
        #expect(!second.partsWritten.isEmpty)
        try Self.expectSameAsFullBuild(second.catalog, key: f.key, tree: f.tree)
    }
}
