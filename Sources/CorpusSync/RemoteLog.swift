import CorpusFormat
import Foundation

/// A published tree's transparency log read over HTTP (docs/format.md "Transparency log"): its
/// checkpoint, and the proofs a computation over its tiles needs, fetching only the tiles it reads.
/// Used by the client's refresh, the mirror and the witness alike.
public struct RemoteLog: Sendable {
    public let client: HTTPClient
    public let source: Source

    public init(client: HTTPClient, source: Source) {
        self.client = client
        self.source = source
    }

    /// `log/checkpoint` as served; nil when the tree has no log (404).
    public func checkpointBytes() async throws -> [UInt8]? {
        do {
            return [UInt8](try await client.get(HTTPRequest(url: source.url(for: TreeLog.checkpoint), maxBodyBytes: TreeLog.maxCheckpointBytes)).body)
        } catch TransportError.httpStatus(code: 404) {
            return nil
        }
    }

    /// One tile or entry bundle; a tile the checkpoint names and the source lacks is a refusal.
    public func tile(_ path: TilePath) async throws -> [UInt8] {
        // An entry is at most 2 + 65,535 bytes; a hash tile exactly 32 bytes a hash.
        let cap = Int64(path.count) * (path.kind == .entries ? Int64(2 + EntryBundle.maxEntrySize) : Int64(MerkleHash.size))
        do {
            return [UInt8](try await client.get(HTTPRequest(url: source.url(for: TreeLog.path(path)), maxBodyBytes: cap)).body)
        } catch TransportError.httpStatus(code: 404) {
            throw SyncError.logRefused(reason: "\(TreeLog.path(path)), a tile the checkpoint names, is missing")
        }
    }

    /// Runs `body` over the tiles of a tree of `treeSize`, fetching each tile it asks for (first
    /// those a dry run names, then any its answers lead it to), and returns its result with the
    /// bytes fetched. `body` must only read: it is run again after each tile it missed.
    public func reading<T>(treeSize: UInt64, prefetch: (TileHashReader) throws -> Void = { _ in },
                           _ body: (TileHashReader) throws -> T) async throws -> (result: T, bytes: Int) {
        var tiles: [TilePath: [UInt8]] = [:]
        var bytes = 0
        do {
            for path in try TileHashReader.tilesNeeded(treeSize: treeSize, prefetch) {
                let tile = try await tile(path)
                bytes += tile.count
                tiles[path] = tile
            }
        } catch let e as TransparencyLogError {
            throw SyncError.logRefused(reason: "\(e)")
        }
        while true {
            let known = tiles
            let reader = TileHashReader(treeSize: treeSize) { path in
                guard let tile = known[path] else { throw MissedTile(path: path) }
                return tile
            }
            do {
                return (try body(reader), bytes)
            } catch let e as MissedTile {
                let path = e.path
                guard tiles[path] == nil else { throw SyncError.logRefused(reason: "a proof asked for a tile it was given") }
                let tile = try await tile(path)
                bytes += tile.count
                tiles[path] = tile
            } catch let e as TransparencyLogError {
                throw SyncError.logRefused(reason: "\(e)")
            }
        }
    }
}

/// Thrown by a tile read that `RemoteLog.reading` has not fetched yet.
private struct MissedTile: Error {
    let path: TilePath
}

extension RemoteLog {
    /// How a served checkpoint stands to one seen before.
    public enum Standing: Sendable, Equatable {
        case same
        /// Larger, and the tiles prove the older tree is its prefix.
        case extends
        /// Smaller than the one seen before: a stale copy, not a proof of anything.
        case older
        /// No append-only log signs both (same size with another root, or a failed proof).
        case fork(reason: String)
    }

    /// Where `served` stands to `held` (both already verified as the log's), proving consistency
    /// from this source's tiles when it is larger.
    public func standing(of served: Checkpoint, after held: Checkpoint) async throws -> Standing {
        if served.size < held.size { return .older }
        if served.size == held.size { return served.rootHash == held.rootHash ? .same : .fork(reason: "two checkpoints of size \(held.size) with different roots") }
        let proof = try await reading(treeSize: served.size, prefetch: { _ = try $0.consistencyProof(from: held.size) }) {
            try $0.consistencyProof(from: held.size)
        }.result
        do {
            try MerkleProof.verifyConsistency(from: held.size, oldRoot: held.rootHash, to: served.size, newRoot: served.rootHash, proof: proof)
            return .extends
        } catch {
            return .fork(reason: "the checkpoint of size \(served.size) does not extend the one of size \(held.size)")
        }
    }
}
