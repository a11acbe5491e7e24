import CorpusFormat
import Foundation

/// Appends leaves to a transparency log kept as static files (C2SP tlog-tiles, docs/format.md
/// "Transparency log"), and signs a new checkpoint (C2SP tlog-checkpoint) over the result.
///
/// Every tile and entry bundle is written before the checkpoint, and the checkpoint is replaced
/// last and atomically, so a reader that sees a checkpoint finds every file it names. Tiles a
/// checkpoint names are never rewritten; the partial tiles of earlier checkpoints stay, so a client
/// holding an older checkpoint can still prove from it. A file left by an append that died before
/// its checkpoint was never named by one, and the next append overwrites it.
///
/// The writer checks the folder against its checkpoint before appending: a checkpoint that its
/// key does not verify, or tiles that do not give its root, are refused rather than extended.
public struct TransparencyLogWriter {
    public struct Appended: Sendable {
        /// The index of the first appended leaf.
        public let firstIndex: UInt64
        public let checkpoint: Checkpoint
        /// The signed checkpoint note as written to `checkpoint`.
        public let note: [UInt8]
    }

    public let folder: LogFolder
    public let origin: String
    private let signer: Ed25519NoteSigner
    /// Earlier log keys (before a key rotation) whose checkpoints the writer extends.
    private let earlier: [any NoteVerifier]

    /// - Parameters:
    ///   - origin: the checkpoint's first line (docs/format.md: `<host>/<path of the log>`).
    ///   - signer: the log key; its key name is the origin, as tlog-checkpoint recommends.
    ///   - earlier: verifiers of the log keys that signed before this one (a rotated catalog key):
    ///     a checkpoint signed by one of them is extended and then signed with `signer`.
    public init(folder: String, origin: String, signer: Ed25519NoteSigner, earlier: [any NoteVerifier] = []) throws {
        guard signer.keyName == origin else {
            throw TransparencyLogError.malformedKey(reason: "the log key's name must be the log's origin \(TerminalText.sanitizeLine(origin))")
        }
        _ = try Checkpoint(origin: origin, size: 0, rootHash: MerkleHash.emptyTree)
        self.folder = LogFolder(path: folder)
        self.origin = origin
        self.signer = signer
        self.earlier = earlier
    }

    /// The log's current checkpoint, verified with the log key; nil for a log not started yet.
    public func checkpoint() throws -> Checkpoint? {
        guard let bytes = try folder.checkpointBytes() else { return nil }
        return try Checkpoint.open(bytes, origin: origin, verifiers: [signer.verifier] + earlier).checkpoint
    }

    /// Appends `leaves` (each at most 65535 bytes) in order and signs the new checkpoint. With no
    /// leaves on a log not started yet, writes the checkpoint of the empty tree.
    /// The caller serialises appends to one folder (the publisher holds its tree lock).
    public func append(_ leaves: [[UInt8]]) throws -> Appended {
        if let large = leaves.first(where: { $0.count > EntryBundle.maxEntrySize }) { throw TransparencyLogError.leafTooLarge(size: large.count) }
        let old = try checkpoint()
        let oldSize = old?.size ?? 0
        if let old {
            let reader = TileHashReader(treeSize: oldSize, fetch: folder.tile)
            guard try reader.root() == old.rootHash else { throw TransparencyLogError.tilesDisagreeWithCheckpoint(treeSize: oldSize) }
        }
        var pending: [TilePath: [UInt8]] = [:]
        var edges = try rightEdges(size: oldSize)
        var entries = try partialEntries(size: oldSize)
        var size = oldSize
        for leaf in leaves {
            entries.append(leaf)
            if entries.count == TilePath.width {
                pending[TilePath(kind: .entries, index: size / UInt64(TilePath.width))] = try EntryBundle.encode(entries)
                entries = []
            }
            // Carry a filled tile up a level, as a binary counter carries a digit.
            var hash = MerkleHash.leaf(leaf)
            var level = 0
            while true {
                if edges.count == level { edges.append([]) }
                edges[level].append(hash)
                guard edges[level].count == TilePath.width else { break }
                let index = (size >> UInt64(8 * level)) / UInt64(TilePath.width)
                pending[TilePath(kind: .hashes(level: level), index: index)] = edges[level].flatMap { $0 }
                hash = MerkleTreeHead.root(leafHashes: edges[level])
                edges[level] = []
                level += 1
            }
            size += 1
        }
        if size > oldSize {
            for (level, edge) in edges.enumerated() where !edge.isEmpty {
                let tile = TilePath.hashTile(level: level, containing: (size >> UInt64(8 * level)) - 1, treeSize: size)!
                pending[tile] = edge.flatMap { $0 }
            }
            if !entries.isEmpty { pending[TilePath.entryBundle(containing: size - 1, treeSize: size)!] = try EntryBundle.encode(entries) }
        }
        let reader = TileHashReader(treeSize: size) { tile in try pending[tile] ?? folder.tile(tile) }
        let checkpoint = try Checkpoint(origin: origin, size: size, rootHash: size == 0 ? MerkleHash.emptyTree : try reader.root())
        var note = try SignedNote(text: checkpoint.text)
        try note.sign(with: signer)
        for (tile, bytes) in pending.sorted(by: { $0.key.path < $1.key.path }) {
            let path = folder.filePath(tile)
            try FileIO.createDirectory((path as NSString).deletingLastPathComponent)
            try FileIO.writeAtomically(Data(bytes), to: path)
        }
        try FileIO.createDirectory(folder.path)
        try FileIO.writeAtomically(Data(note.bytes), to: folder.checkpointPath)
        return Appended(firstIndex: oldSize, checkpoint: checkpoint, note: note.bytes)
    }

    /// The hashes of the partial tile at each level of a tree of `size` (empty where it has none).
    private func rightEdges(size: UInt64) throws -> [[[UInt8]]] {
        var edges: [[[UInt8]]] = []
        for level in 0...TilePath.maxLevel {
            let available = level * 8 >= 64 ? 0 : size >> UInt64(8 * level)
            guard available > 0 else { break }
            guard available % UInt64(TilePath.width) != 0,
                  let tile = TilePath.hashTile(level: level, containing: available - 1, treeSize: size) else {
                edges.append([])
                continue
            }
            let bytes = try folder.tile(tile)
            guard bytes.count == tile.count * MerkleHash.size else {
                throw TransparencyLogError.malformedTile(path: tile.path, reason: "\(bytes.count) bytes, expected \(tile.count * MerkleHash.size)")
            }
            edges.append(stride(from: 0, to: bytes.count, by: MerkleHash.size).map { Array(bytes[$0..<($0 + MerkleHash.size)]) })
        }
        return edges
    }

    /// The leaves of the partial entry bundle of a tree of `size`, checked against its level-0 tile.
    private func partialEntries(size: UInt64) throws -> [[UInt8]] {
        guard size % UInt64(TilePath.width) != 0, let bundle = TilePath.entryBundle(containing: size - 1, treeSize: size),
              let tile = TilePath.hashTile(level: 0, containing: size - 1, treeSize: size) else { return [] }
        let entries = try EntryBundle.decode(try folder.tile(bundle), path: bundle)
        guard entries.map({ MerkleHash.leaf($0) }).flatMap({ $0 }) == (try folder.tile(tile)) else {
            throw TransparencyLogError.tilesDisagreeWithCheckpoint(treeSize: size)
        }
        return entries
    }
}
