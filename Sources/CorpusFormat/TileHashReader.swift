import Foundation

/// Reads the complete-subtree hashes a tree head or proof needs from the tiles of a tree of a
/// given size, through a caller's fetch (a file read, an HTTP GET), caching each tile it read.
///
/// A tile's bytes are not trusted here beyond their length: a proof or root built from them is
/// checked against a signed checkpoint, which a wrong hash cannot pass.
public final class TileHashReader {
    /// Returns the bytes of one tile; throws when it cannot be had.
    public typealias Fetch = (TilePath) throws -> [UInt8]

    public let treeSize: UInt64
    private let fetch: Fetch
    private var tiles: [TilePath: [UInt8]] = [:]

    public init(treeSize: UInt64, fetch: @escaping Fetch) {
        self.treeSize = treeSize
        self.fetch = fetch
    }

    /// The tiles read so far, by path (a client keeps or counts them).
    public var fetched: [TilePath: [UInt8]] { tiles }

    /// The hash of the complete subtree of height `level` at `index`: 2^(level mod 8) consecutive
    /// hashes of one tile at tile level `level / 8`, hashed up.
    public func subtreeHash(level: Int, index: UInt64) throws -> [UInt8] {
        let tileLevel = level / 8, height = level % 8
        let first = index << UInt64(height), span = 1 << height
        guard level < 64, (index + 1) << UInt64(level) <= treeSize,
              let path = TilePath.hashTile(level: tileLevel, containing: first, treeSize: treeSize) else {
            throw TransparencyLogError.outOfRange(reason: "no subtree of height \(level) at \(index) in a tree of size \(treeSize)")
        }
        let tile = try read(path)
        let offset = Int(first % UInt64(TilePath.width)) * MerkleHash.size
        var hashes = (0..<span).map { i in Array(tile[(offset + i * MerkleHash.size)..<(offset + (i + 1) * MerkleHash.size)]) }
        while hashes.count > 1 {
            hashes = stride(from: 0, to: hashes.count, by: 2).map { MerkleHash.node(hashes[$0], hashes[$0 + 1]) }
        }
        return hashes[0]
    }

    public var subtree: MerkleTreeHead.SubtreeHash { { [self] level, index in try subtreeHash(level: level, index: index) } }

    public func root() throws -> [UInt8] { try MerkleTreeHead.root(size: treeSize, subtree: subtree) }

    public func inclusionProof(index: UInt64) throws -> [[UInt8]] {
        try MerkleProof.inclusionProof(index: index, size: treeSize, subtree: subtree)
    }

    /// The proof from `old` to this reader's tree size.
    public func consistencyProof(from old: UInt64) throws -> [[UInt8]] {
        try MerkleProof.consistencyProof(from: old, to: treeSize, subtree: subtree)
    }

    private func read(_ path: TilePath) throws -> [UInt8] {
        if let tile = tiles[path] { return tile }
        let tile = try fetch(path)
        guard tile.count == path.count * MerkleHash.size else {
            throw TransparencyLogError.malformedTile(path: path.path, reason: "\(tile.count) bytes, expected \(path.count * MerkleHash.size)")
        }
        tiles[path] = tile
        return tile
    }

    /// The tiles a computation over a tree of `treeSize` reads, found by running it on zeroed
    /// tiles: an asynchronous client fetches them (in parallel) and then runs it for real on them.
    public static func tilesNeeded(treeSize: UInt64, _ body: (TileHashReader) throws -> Void) throws -> [TilePath] {
        let dry = TileHashReader(treeSize: treeSize) { [UInt8](repeating: 0, count: $0.count * MerkleHash.size) }
        try body(dry)
        return dry.tiles.keys.sorted { $0.path < $1.path }
    }
}

@available(*, unavailable)
extension TileHashReader: Sendable {}
