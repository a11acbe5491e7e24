import Foundation

/// The Merkle Tree Hash MTH(D[a:b]) of RFC 6962 §2.1 for the ranges a tree head or a proof
/// names, built from the hashes of complete subtrees (what tiles store), so a root or a proof
/// hash costs at most one complete-subtree look-up per level.
public enum MerkleTreeHead {
    /// The hash of the complete subtree of height `level` at position `index`: the leaves
    /// `[index << level, (index + 1) << level)`.
    public typealias SubtreeHash = (_ level: Int, _ index: UInt64) throws -> [UInt8]

    /// MTH(D[range]) where the range starts on a boundary of the tree's own split (every range
    /// a tree head or an RFC 6962 proof names does): split at the largest power of two below its
    /// length until each piece is a complete subtree.
    public static func hash(of range: Range<UInt64>, subtree: SubtreeHash) throws -> [UInt8] {
        let count = range.upperBound - range.lowerBound
        if count == 0 { return MerkleHash.emptyTree }
        if count.nonzeroBitCount == 1 {
            let level = count.trailingZeroBitCount
            precondition(range.lowerBound % count == 0, "range \(range) is not a subtree of the tree")
            return try subtree(level, range.lowerBound >> level)
        }
        let k = MerkleHash.split(count)
        let left = try hash(of: range.lowerBound..<(range.lowerBound + k), subtree: subtree)
        let right = try hash(of: (range.lowerBound + k)..<range.upperBound, subtree: subtree)
        return MerkleHash.node(left, right)
    }

    /// The root of the tree of `size` leaves.
    public static func root(size: UInt64, subtree: SubtreeHash) throws -> [UInt8] {
        try hash(of: 0..<size, subtree: subtree)
    }

    /// The root of a tree held whole in memory, from its leaf hashes (a writer's or a test's tree).
    public static func root(leafHashes: [[UInt8]]) -> [UInt8] {
        guard !leafHashes.isEmpty else { return MerkleHash.emptyTree }
        // Fold complete subtrees left to right (a binary counter), then join the stack right to left.
        var stack: [(level: Int, hash: [UInt8])] = []
        for leaf in leafHashes {
            var entry = (level: 0, hash: leaf)
            while let last = stack.last, last.level == entry.level {
                stack.removeLast()
                entry = (last.level + 1, MerkleHash.node(last.hash, entry.hash))
            }
            stack.append(entry)
        }
        var hash = stack.removeLast().hash
        while let last = stack.popLast() { hash = MerkleHash.node(last.hash, hash) }
        return hash
    }
}
