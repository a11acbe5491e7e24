import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// A republish after one corpus changed builds only the parts that hold it (issue 31 item 4): the
/// publisher's record of its last version (`CatalogPartIndex`, `.catalog-parts`) names every other
/// part without encoding, compressing or hashing it, and what it writes is byte for byte what a
/// full build writes.
@Suite struct CatalogPartReuseTests {
    static let count = 1_500
    static let entries = (0..<count).map { generatedEntry($0) }

    static func catalog(_ entries: [CatalogEntry], version: Int) -> Catalog {
        let issued = Date(timeIntervalSince1970: 1_800_000_000)
        return Catalog(id: "scale", title: "Generated", version: version, issued: issued, expires: issued.addingTimeInterval(30 * 86400),
                       rootVersion: 1, corpora: entries)
    }

    /// Every part file under `parts/`, by name, with its bytes.
    static func parts(_ tree: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: "\(tree)/parts") {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: "\(tree)/parts/\(name)"))
        }
        return out
    }

    static func top(_ version: Int, _ tree: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.topPath(version: version))"))
    }

    @Test func aRepublishAfterOneChangeBuildsOnlyItsPartsAndWritesWhatAFullBuildWrites() throws {
        let key = try SecretKey.generate()
        let incremental = TempDirectory("reuse"), full = TempDirectory("full")
        _ = try CatalogPartWriter.write(Self.catalog(Self.entries, version: 1), key: key, tree: incremental.path)
        var changed = Self.entries
        changed[321] = generatedEntry(321, version: "2")
        let next = Self.catalog(changed, version: 2)

        let written = try CatalogPartWriter.write(next, key: key, tree: incremental.path)
        let depth = CatalogPartition.depth(forCount: Self.count)
        // Its leaf, the nodes above it, its listing part; the listing index is always built.
        #expect(written.parts.count == depth + 1 + 2)
        let all = try CatalogPartition.build(changed)
        let listing = try ListingPartition.build(changed)
        #expect(written.reused == all.stored.count - (depth + 1) + listing.parts.count - 1)

        // The same catalog built from nothing: the same top document, and every part the
        // incremental tree holds for version 2 is the same bytes as the full build's.
        _ = try CatalogPartWriter.write(next, key: key, tree: full.path)
        #expect(try Self.top(2, incremental.path) == Self.top(2, full.path))
        let fullParts = try Self.parts(full.path)
        let incrementalParts = try Self.parts(incremental.path)
        for (name, bytes) in fullParts { #expect(incrementalParts[name] == bytes, "part \(name)") }
        #expect(CatalogPartIndex.load(tree: incremental.path) == CatalogPartIndex.load(tree: full.path))
    }

    /// A record that does not describe a top document the tree holds is not used (a full build
    /// follows, with the same result), and a recorded part the tree lost is built again.
    @Test func aStaleRecordOrAMissingPartIsBuiltAgain() throws {
        let key = try SecretKey.generate()
        let tree = TempDirectory("stale")
        _ = try CatalogPartWriter.write(Self.catalog(Self.entries, version: 1), key: key, tree: tree.path)
        let record = try #require(CatalogPartIndex.load(tree: tree.path))

        // Recorded for a version whose top document is gone, or with another root: not loaded.
        var other = record
        other.version = 7
        try other.write(tree: tree.path)
        #expect(CatalogPartIndex.load(tree: tree.path) == nil)
        other = record
        other.root = record.leaves.values.first!.part
        try other.write(tree: tree.path)
        #expect(CatalogPartIndex.load(tree: tree.path) == nil)
        try FileIO.writeAtomically(Data("catalog-parts 1\nnot a record\n".utf8), to: "\(tree.path)/\(CatalogPartIndex.fileName)")
        #expect(CatalogPartIndex.load(tree: tree.path) == nil)
        let full = try CatalogPartWriter.write(Self.catalog(Self.entries, version: 2), key: key, tree: tree.path)
        #expect(full.reused == 0)

        // A part the record names but the tree no longer holds is built (and written) again.
        let leaf = try #require(CatalogPartIndex.load(tree: tree.path)?.leaves.values.first?.part)
        FileIO.remove("\(tree.path)/\(leaf.path)")
        let again = try CatalogPartWriter.write(Self.catalog(Self.entries, version: 3), key: key, tree: tree.path)
        #expect(again.parts.contains(leaf.path))
        #expect(CatalogPartIndex.holds(leaf, tree: tree.path))
    }
}
