import Foundation

/// The proofs one refresh of a log needs, read from the tiles of the new tree (docs/format.md
/// "What a client checks"): consistency from the size accepted before, and the index and
/// inclusion proof of the leaf being accepted, looked for among the last `searched` leaves (a
/// publish appends its catalog last). The tiles this reads are what a refresh fetches.
public enum LogRefreshProofs {
    public struct Proofs: Sendable {
        public var consistency: [[UInt8]]
        /// nil when the leaf is not among the last `searched` leaves.
        public var index: UInt64?
        public var inclusion: [[UInt8]]
    }

    /// Reads what `compute` will read first, so a client can fetch it before running it for real.
    public static func prefetch(_ reader: TileHashReader, from old: UInt64) throws {
        let n = reader.treeSize
        if old > 0 && old < n { _ = try reader.consistencyProof(from: old) }
        if n > 0 { _ = try reader.inclusionProof(index: n - 1) }
    }

    public static func compute(_ reader: TileHashReader, from old: UInt64, leafHash: [UInt8], searched: UInt64) throws -> Proofs {
        let n = reader.treeSize
        let consistency = old > 0 && old < n ? try reader.consistencyProof(from: old) : []
        var index: UInt64?
        var i = n
        while i > 0 && n - i < searched && index == nil {
            i -= 1
            if try reader.subtreeHash(level: 0, index: i) == leafHash { index = i }
        }
        return Proofs(consistency: consistency, index: index, inclusion: try index.map { try reader.inclusionProof(index: $0) } ?? [])
    }
}
