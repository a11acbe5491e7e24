import CorpusFormat
import Foundation
import Testing

/// Tile paths and the tiles a tree serves, against the examples of C2SP tlog-tiles.
@Suite struct TilePathTests {
    @Test(arguments: [
        (TilePath(kind: .hashes(level: 0), index: 0), "tile/0/000"),
        (TilePath(kind: .hashes(level: 0), index: 999), "tile/0/999"),
        (TilePath(kind: .hashes(level: 1), index: 1000), "tile/1/x001/000"),
        (TilePath(kind: .hashes(level: 2), index: 1_234_067), "tile/2/x001/x234/067"),
        (TilePath(kind: .hashes(level: 0), index: 1_234_067, partialWidth: 5), "tile/0/x001/x234/067.p/5"),
        (TilePath(kind: .entries, index: 7, partialWidth: 255), "tile/entries/007.p/255"),
        (TilePath(kind: .entries, index: 1_000_000), "tile/entries/x001/x000/000"),
    ])
    func pathsFollowTheSpec(_ tile: TilePath, _ path: String) {
        #expect(tile.path == path)
    }

    /// tlog-tiles: "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial
    /// level 0 tile of width 112, one full level 1 tile, one partial level 1 tile of width 17, and
    /// one partial level 2 tile of width 1" (and 274 entry bundles, the last of width 112).
    @Test func theSpecsTreeOf70000() {
        let tiles = TilePath.all(treeSize: 70_000)
        let hashTiles = tiles.filter { $0.kind != .entries }
        #expect(hashTiles.filter { $0.kind == .hashes(level: 0) && $0.partialWidth == nil }.count == 273)
        #expect(hashTiles.filter { $0.partialWidth != nil } == [
            TilePath(kind: .hashes(level: 0), index: 273, partialWidth: 112),
            TilePath(kind: .hashes(level: 1), index: 1, partialWidth: 17),
            TilePath(kind: .hashes(level: 2), index: 0, partialWidth: 1),
        ])
        #expect(hashTiles.filter { $0.kind == .hashes(level: 1) && $0.partialWidth == nil } == [TilePath(kind: .hashes(level: 1), index: 0)])
        #expect(tiles.filter { $0.kind == .entries }.count == 274)
        #expect(tiles.last(where: { $0.kind == .entries }) == TilePath(kind: .entries, index: 273, partialWidth: 112))
    }

    /// "a tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile of width 1".
    @Test func theSpecsTreeOf256() {
        #expect(TilePath.all(treeSize: 256) == [
            TilePath(kind: .entries, index: 0), TilePath(kind: .hashes(level: 0), index: 0), TilePath(kind: .hashes(level: 1), index: 0, partialWidth: 1),
        ])
        #expect(TilePath.all(treeSize: 0).isEmpty)
        #expect(TilePath.all(treeSize: 1) == [TilePath(kind: .entries, index: 0, partialWidth: 1), TilePath(kind: .hashes(level: 0), index: 0, partialWidth: 1)])
    }

    @Test func entryBundlesRoundTripAndRefuseAWrongCount() throws {
        let entries: [[UInt8]] = [[], [1, 2, 3], [UInt8](repeating: 9, count: 300)]
        let path = TilePath(kind: .entries, index: 0, partialWidth: 3)
        let bytes = try EntryBundle.encode(entries)
        #expect(Array(bytes.prefix(7)) == [0, 0, 0, 3, 1, 2, 3])
        #expect(try EntryBundle.decode(bytes, path: path) == entries)
        #expect(throws: TransparencyLogError.malformedEntryBundle(path: "tile/entries/000.p/2", reason: "3 entries, expected 2")) {
            try EntryBundle.decode(bytes, path: TilePath(kind: .entries, index: 0, partialWidth: 2))
        }
        #expect(throws: TransparencyLogError.malformedEntryBundle(path: "tile/entries/000.p/3", reason: "truncated entry at byte 9")) {
            try EntryBundle.decode(Array(bytes.dropLast()), path: path)
        }
        #expect(throws: TransparencyLogError.leafTooLarge(size: 65536)) { try EntryBundle.encode([[UInt8](repeating: 0, count: 65536)]) }
    }

    @Test func aCatalogLeafHasOneStableEncoding() throws {
        let leaf = try LogLeaf(catalogID: "acme-docs", version: 12, documentBytes: Array("{}".utf8))
        let text = "corpussync-log-leaf/v1\ncatalog acme-docs\nversion 12\nsha256 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n"
        #expect(leaf.bytes == Array(text.utf8))
        #expect(try LogLeaf(bytes: leaf.bytes) == leaf)
        #expect(throws: TransparencyLogError.malformedLeaf(reason: "the version is not a decimal number")) {
            try LogLeaf(bytes: Array(text.replacingOccurrences(of: "version 12", with: "version 012").utf8))
        }
        #expect(throws: TransparencyLogError.malformedLeaf(reason: "unknown document kind")) {
            try LogLeaf(bytes: Array(text.replacingOccurrences(of: "catalog acme", with: "manifest acme").utf8))
        }
    }

    /// A served tile of the wrong length is refused before any of its bytes is hashed; the tiles a
    /// proof needs can be listed first (for parallel fetches) and are the ones it then reads.
    @Test func tileReadsCheckLengthAndCanBeListedAhead() throws {
        let short = TileHashReader(treeSize: 300) { [UInt8](repeating: 0, count: $0.count * 32 - 1) }
        #expect(throws: TransparencyLogError.malformedTile(path: "tile/0/000", reason: "8191 bytes, expected 8192")) { try short.inclusionProof(index: 3) }
        let needed = try TileHashReader.tilesNeeded(treeSize: 300) { _ = try $0.inclusionProof(index: 3) }
        #expect(needed == [TilePath(kind: .hashes(level: 0), index: 0), TilePath(kind: .hashes(level: 0), index: 1, partialWidth: 44)])
        #expect(needed.allSatisfy { $0.kind != .entries })
    }
}
