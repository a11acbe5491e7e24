import Foundation

/// RFC 6962 §2.1 Merkle tree hashing with SHA-256, the hashing of every transparency log here
/// (C2SP tlog-tiles): a leaf is hashed with a 0x00 prefix and an interior node with 0x01, so a
/// leaf can never be passed off as a node (second-preimage separation).
public enum MerkleHash {
    public static let size = 32

    /// MTH({}) = SHA-256() — the root of the empty tree.
    public static let emptyTree: [UInt8] = SHA256.hash([UInt8]())

    /// MTH({d}) = SHA-256(0x00 || d).
    public static func leaf<D: ContiguousBytes>(_ data: D) -> [UInt8] {
        let digest = Digest(.sha256)
        digest.update([UInt8(0x00)])
        digest.update(data)
        return digest.finalize()
    }

    /// SHA-256(0x01 || left || right).
    public static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        precondition(left.count == size && right.count == size, "Merkle hashes have 32 bytes")
        let digest = Digest(.sha256)
        digest.update([UInt8(0x01)])
        digest.update(left)
        digest.update(right)
        return digest.finalize()
    }

    /// The largest power of two strictly less than `n` (n ≥ 2): the split point k of RFC 6962 §2.1.
    static func split(_ n: UInt64) -> UInt64 {
        precondition(n >= 2)
        return UInt64(1) << (63 - (n - 1).leadingZeroBitCount)
    }
}
