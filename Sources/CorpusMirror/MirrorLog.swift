import CorpusFormat
import CorpusSync
import Foundation

/// The upstream's transparency log, carried by `corpusd mirror` (docs/format.md "Transparency
/// log"): its checkpoint, signed by a catalog key of the newest root and consistent with the one
/// the mirror serves, and every tile and entry bundle it names that the mirror lacks, checked to
/// give its root (each entry bundle against its level-0 tile). Tiles are written before the
/// checkpoint, both before the pointer.
struct MirrorLog {
    struct Staged {
        var note: [UInt8]
        var tiles: [(TilePath, [UInt8])]
    }

    /// What to write; nil when the upstream has no log (a tree published before logs existed).
    static func fetch(from log: RemoteLog, catalogID: String, root: TrustedRoot, mirror: MirrorDirectory) async throws -> Staged? {
        guard let served = try await log.checkpointBytes() else {
            if FileIO.exists(mirror.path(TreeLog.checkpoint)) {
                throw SyncError.logRefused(reason: "the upstream served a log before and serves no \(TreeLog.checkpoint) now")
            }
            return nil
        }
        let origin = TreeLog.origin(catalogID: catalogID)
        let verifiers = try root.catalogKeys.map { try $0.noteVerifier(keyName: origin) }
        let checkpoint: Checkpoint
        do { checkpoint = try Checkpoint.open(served, origin: origin, verifiers: verifiers).checkpoint } catch {
            throw SyncError.logRefused(reason: "\(TreeLog.checkpoint): \(error)")
        }
        // The mirror's checkpoint was verified when written; one signed by a key the newest root no
        // longer lists (rotated after a theft) sets no floor, as for clients.
        if let held = FileManager.default.contents(atPath: mirror.path(TreeLog.checkpoint)),
           let heldCheckpoint = try? Checkpoint.open([UInt8](held), origin: origin, verifiers: verifiers).checkpoint {
            switch try await log.standing(of: checkpoint, after: heldCheckpoint) {
            case .same, .extends: break
            case .older:
                throw SyncError.logRefused(reason: "the upstream's checkpoint (size \(checkpoint.size)) is older than the mirror's (size \(heldCheckpoint.size))")
            case let .fork(reason):
                throw SyncError.logFork(reason: reason, evidence: mirror.path(TreeLog.checkpoint) + " and the upstream's " + TreeLog.checkpoint)
            }
        }
        var tiles: [TilePath: [UInt8]] = [:]
        for path in TilePath.all(treeSize: checkpoint.size) where !FileIO.exists(mirror.path(TreeLog.path(path))) {
            tiles[path] = try await log.tile(path)
        }
        let local = { (path: TilePath) throws -> [UInt8] in
            if let tile = tiles[path] { return tile }
            return [UInt8](FileManager.default.contents(atPath: mirror.path(TreeLog.path(path))) ?? Data())
        }
        do {
            guard try TileHashReader(treeSize: checkpoint.size, fetch: local).root() == checkpoint.rootHash else {
                throw SyncError.logRefused(reason: "the upstream's tiles do not give its checkpoint's root")
            }
            for (path, bytes) in tiles where path.kind == .entries {
                let level0 = TilePath(kind: .hashes(level: 0), index: path.index, partialWidth: path.partialWidth)
                guard try EntryBundle.decode(bytes, path: path).flatMap({ MerkleHash.leaf($0) }) == (try local(level0)) else {
                    throw SyncError.logRefused(reason: "\(TreeLog.path(path)) does not hold the leaves its hash tile names")
                }
            }
        } catch let e as TransparencyLogError {
            throw SyncError.logRefused(reason: "\(e)")
        }
        return Staged(note: served, tiles: tiles.sorted { $0.key.path < $1.key.path })
    }

    static func write(_ staged: Staged, into mirror: MirrorDirectory) throws {
        for (path, bytes) in staged.tiles { try mirror.writeIfMissing(Data(bytes), to: TreeLog.path(path)) }
        try mirror.write(Data(staged.note), to: TreeLog.checkpoint)
    }
}
