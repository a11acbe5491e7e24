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

    /// An empty tree with its `catalogs/` folder, as `corpusd publish` makes it first.
    static func tree(_ label: String) throws -> TempDirectory {
        let dir = TempDirectory(label)
        try FileIO.createDirectory("\(dir.path)/catalogs")
        return dir
    }

    static func top(_ version: Int, _ tree: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.topPath(version: version))"))
    }

    /// The tree's record with what only its history sets cleared: since when each place named its
    /// part, and the parts it replaced. Two trees of the same catalog have the same buckets.
    static func buckets(_ tree: String) throws -> CatalogPartIndex {
        var r = try #require(CatalogPartIndex.load(tree: tree))
        r.leaves = r.leaves.mapValues { var b = $0; b.since = 0; return b }
        r.nodes = r.nodes.mapValues { var b = $0; b.since = 0; return b }
        r.listing = r.listing.map { var b = $0; b.since = 0; return b }
        (r.listingIndexSince, r.replaced) = (0, [])
        return r
    }

    @Test func aRepublishAfterOneChangeBuildsOnlyItsPartsAndWritesWhatAFullBuildWrites() throws {
        let key = try SecretKey.generate()
        let incremental = try Self.tree("reuse"), full = try Self.tree("full")
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
        #expect(try Self.buckets(incremental.path) == Self.buckets(full.path))
    }

    /// A record that does not describe a top document the tree holds is not used (a full build
    /// follows, with the same result), and a recorded part the tree lost is built again.
    @Test func aStaleRecordOrAMissingPartIsBuiltAgain() throws {
        let key = try SecretKey.generate()
        let tree = try Self.tree("stale")
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

/// A catalog whose flat document would be larger than any client reads (`Catalog.maxFlatBytes`,
/// about 48,000 one-book entries) is published as its top document alone: no 69 MB file encoded,
/// signed and written by every republish for clients that refuse it anyway.
@Suite struct FlatCatalogCapTests {
    /// The writer's estimate of the flat catalog's size, from the JSON it digests anyway, is
    /// within a fraction of a percent of the real one.
    @Test func theEntriesSizeEstimatesTheFlatCatalog() throws {
        let tree = try CatalogPartReuseTests.tree("estimate")
        let catalog = CatalogPartReuseTests.catalog(CatalogPartReuseTests.entries, version: 1)
        let written = try CatalogPartWriter.write(catalog, key: try SecretKey.generate(), tree: tree.path)
        let flat = Int64(try catalog.canonicalBytes().count)
        #expect(abs(written.entryBytes - flat) < flat / 100)
        #expect(written.flatCatalogFits)
    }

    @Test func aVersionWithoutAFlatCatalogNamesItsTopDocumentInThePointerAndTheTimestamp() throws {
        let key = try SecretKey.generate()
        let tree = TempDirectory("no-flat")
        let now = Date()
        _ = try RootKeyChain.write(version: 1, newKey: key.publicKey, signer: key, created: now, tree: tree.path)
        try FileIO.createDirectory("\(tree.path)/catalogs")
        let catalog = CatalogPartReuseTests.catalog(CatalogPartReuseTests.entries, version: 1)
        let parts = try CatalogPartWriter.write(catalog, key: key, tree: tree.path)
        let stamp = try TreePublisher.writeCatalog(catalog, key: key, trust: .singleKey(keyID: key.keyID.description), tree: tree.path,
                                                   flat: false) { pointer, flatBytes in
            #expect(flatBytes == nil)
            _ = try TreeLogAppender.append(tree: tree.path, catalog: catalog, catalogBytes: flatBytes, topBytes: parts.signedBytes, key: key)
            return try TimestampWriter.write(catalog: pointer, version: 1, key: key, tree: tree.path, now: now, expiresIn: 86400)
        }
        let top = TreeLayout.topPath(version: 1)
        #expect(!FileIO.exists("\(tree.path)/\(TreeLayout.catalogPath(version: 1))"))
        let pointer = try JSONDecoder().decode(CatalogPointer.self, from: Data(contentsOf: URL(fileURLWithPath: "\(tree.path)/\(TreeLayout.pointer)")))
        #expect(pointer.path == top)
        // The timestamp names the top document twice: as `top` for this release, as `catalog` for
        // an earlier one, which fetches it, checks it and refuses its format 2 by name.
        let decoded = try TimestampDocument.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree.path)/\(TreeLayout.timestamp)")))
        #expect(decoded == stamp && decoded.catalog.path == top && decoded.top?.path == top)
        #expect(try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree.path)/\(top)"))).format == Catalog.topFormat)
        // The version counts for what the tree has promised, and `corpusd timestamp` vouches for it again.
        #expect(PublishedTree(root: tree.path).publishedVersions() == [1])
        let history = try TreeHistory.load(tree: tree.path)
        #expect(history.latestVersion == 1 && history.corpora.count == CatalogPartReuseTests.count)
        let renewed = try TimestampWriter.renew(tree: tree.path, key: key, now: now)
        #expect(renewed.version == 2 && renewed.catalog.path == top)
    }
}
