import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Garbage collection of catalog parts (docs/publishing.md "Catalog parts and their retention"):
/// a publish removes the parts no retained top document names (the current one, the previous one,
/// every unexpired one) and keeps the rest, so a reader of an older top still finds its parts.
@Suite struct CatalogPartRetentionTests {
    typealias Fixture = TreePublisherTests.Fixture

    /// The parts a top document names, read through the trie from the tree (every part checked
    /// against its reference), with its listing index and listing parts; throws when one is
    /// missing or altered.
    static func partsOfTop(_ version: Int, tree: String) throws -> Set<String> {
        let top = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.topPath(version: version))")))
        let parts = try #require(top.parts)
        let walk = try CatalogPartWalk.entries(of: parts, ids: nil) { ref in
            try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(ref.path)"))
        }
        #expect(walk.entries.count == parts.count)
        let listing = try #require(top.listing, "a top document of this release names its listing")
        let index = try ListingDocument.index(stored: Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(listing.index.path)")), ref: listing.index)
        for p in index { _ = try ListingDocument.rows(stored: Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(p.part.path)")), ref: p) }
        return Set(walk.read.map(\.ref.path)).union([listing.index.path]).union(index.map(\.part.path))
    }

    static func partsOnDisk(_ tree: String) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: "\(tree)/parts")) ?? []).map { "parts/\($0)" })
    }

    /// Bumps tides to `version` with one more document: a new entry, so a new leaf and new nodes.
    static func changeTides(_ f: Fixture, to version: Int) throws {
        try f.dir.write("catalog/tides/extra-\(version).txt", "Extra \(version)\n\nTides follow the moon, note \(version).")
        let json = try String(contentsOfFile: "\(f.catalog)/catalog.json", encoding: .utf8)
        try f.dir.write("catalog/catalog.json", json.replacingOccurrences(of: #""id": "tides", "version": "\#(version - 1)""#,
                                                                            with: #""id": "tides", "version": "\#(version)""#))
    }

    @Test func aPartNoRetainedTopNamesIsRemovedAndThePreviousTopsPartsSurvive() throws {
        let f = try Fixture()
        let start = Date()
        _ = try f.publish(now: start)
        let first = try Self.partsOfTop(1, tree: f.tree)
        try Self.changeTides(f, to: 2)
        let second = try f.publish(now: start)
        let two = try Self.partsOfTop(2, tree: f.tree)
        let onlyFirst = first.subtracting(two)
        #expect(!onlyFirst.isEmpty)
        // Catalog 1 has not expired: a client that read top 1 a moment ago still finds its parts.
        #expect(second.partsRemoved.isEmpty)
        #expect(Self.partsOnDisk(f.tree) == first.union(two))

        // A stray part (a half-finished publish's, or one no top ever named): no record lists it.
        let stray = try CatalogPart.leaf(prefix: "00", entries: []).stored()
        let strayPath = PartRef(stored: stray).path
        try f.dir.write("public/\(strayPath)", stray)

        // 40 days on: top 1 expired and is neither current nor previous; top 2 expired but is the previous.
        // The republish changed one corpus, so it looks only at the parts the record lists as replaced.
        try Self.changeTides(f, to: 3)
        let third = try f.publish(now: start.addingTimeInterval(40 * 86400))
        let three = try Self.partsOfTop(3, tree: f.tree)
        #expect(third.partsRemoved == onlyFirst.sorted())
        #expect(Self.partsOnDisk(f.tree) == two.union(three).union([strayPath]))
        for path in onlyFirst { #expect(!FileIO.exists("\(f.tree)/\(path)"), "\(path)") }
        // The tree still verifies: both retained tops read through, their signatures hold.
        #expect(try Self.partsOfTop(2, tree: f.tree) == two)
        for version in [2, 3] {
            let check = try f.verify(TreeLayout.topPath(version: version))
            #expect(check.status == 0, "\(check.stderr)")
        }
        #expect(try f.verify("catalogs/3.json").status == 0)

        // A full build (here: the record lost) reads every part name: the stray goes, with top 2's own parts.
        FileIO.remove("\(f.tree)/\(CatalogPartIndex.fileName)")
        try Self.changeTides(f, to: 4)
        let fourth = try f.publish(now: start.addingTimeInterval(41 * 86400))
        let four = try Self.partsOfTop(4, tree: f.tree)
        #expect(fourth.partsRemoved == two.subtracting(three).subtracting(four).union([strayPath]).sorted())
        #expect(Self.partsOnDisk(f.tree) == three.union(four))
    }

    /// A retained top whose node is damaged: which parts it names is unknown, so none is removed.
    @Test func aRetainedTopThatCannotBeReadThroughRemovesNoPart() throws {
        let f = try Fixture()
        let start = Date()
        _ = try f.publish(now: start)
        let first = try Self.partsOfTop(1, tree: f.tree)
        let top = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/\(TreeLayout.topPath(version: 1))")))
        try Self.changeTides(f, to: 2)
        _ = try f.publish(now: start)
        let stray = try CatalogPart.leaf(prefix: "00", entries: []).stored()
        try f.dir.write("public/\(PartRef(stored: stray).path)", stray)
        // Top 1 is still unexpired (retained); its root node no longer matches its reference.
        try f.dir.write("public/\(try #require(top.parts).root.path)", Data("damaged".utf8))
        let before = Self.partsOnDisk(f.tree)
        try Self.changeTides(f, to: 3)
        let third = try f.publish(now: start)
        #expect(third.partsRemoved.isEmpty)
        #expect(Self.partsOnDisk(f.tree).isSuperset(of: before))
        #expect(first.isSubset(of: Self.partsOnDisk(f.tree)))
    }
}
