import Foundation

/// Inclusion and consistency proofs of RFC 6962 §2.1.1/§2.1.2 (generation: the ranges whose
/// MTH a proof lists) and RFC 9162 §2.1.3.2/§2.1.4.2 (verification), for trees stored anywhere:
/// the hashes come from a `MerkleTreeHead.SubtreeHash` (tiles on disk or over HTTP, or memory).
public enum MerkleProof {
    /// The leaf ranges whose hashes make PATH(index, D[0:size]), leaf to root.
    public static func inclusionRanges(index: UInt64, size: UInt64) throws -> [Range<UInt64>] {
        guard index < size else { throw TransparencyLogError.outOfRange(reason: "leaf \(index) is not in a tree of size \(size)") }
        var ranges: [Range<UInt64>] = []
        // PATH(m, D[lo:hi]), iteratively: each step records the sibling, descends into m's side.
        var lo: UInt64 = 0, hi = size
        while hi - lo > 1 {
            let k = MerkleHash.split(hi - lo)
            if index < lo + k {
                ranges.append((lo + k)..<hi)
                hi = lo + k
            } else {
                ranges.append(lo..<(lo + k))
                lo += k
            }
        }
        return ranges.reversed()
    }

    /// The leaf ranges whose hashes make PROOF(old, D[0:new]) = SUBPROOF(old, D[0:new], true),
    /// from the smallest subtree up. Empty when old == new; refused for old == 0 (RFC 6962 defines
    /// no proof from the empty tree: every tree extends it) and for old > new.
    public static func consistencyRanges(from old: UInt64, to new: UInt64) throws -> [Range<UInt64>] {
        guard old >= 1, old <= new else {
            throw TransparencyLogError.outOfRange(reason: "no consistency proof from tree size \(old) to \(new)")
        }
        var ranges: [Range<UInt64>] = []
        var m = old, lo: UInt64 = 0, hi = new, whole = true
        while m != hi - lo {
            let k = MerkleHash.split(hi - lo)
            if m <= k {
                ranges.append((lo + k)..<hi)
                hi = lo + k
            } else {
                ranges.append(lo..<(lo + k))
                m -= k
                lo += k
                whole = false
            }
        }
        // SUBPROOF(m, D[m], b): nothing when this is the old tree itself, else its MTH.
        if !whole { ranges.append(lo..<hi) }
        return ranges.reversed()
    }

    public static func inclusionProof(index: UInt64, size: UInt64, subtree: MerkleTreeHead.SubtreeHash) throws -> [[UInt8]] {
        try inclusionRanges(index: index, size: size).map { try MerkleTreeHead.hash(of: $0, subtree: subtree) }
    }

    public static func consistencyProof(from old: UInt64, to new: UInt64, subtree: MerkleTreeHead.SubtreeHash) throws -> [[UInt8]] {
        try consistencyRanges(from: old, to: new).map { try MerkleTreeHead.hash(of: $0, subtree: subtree) }
    }

    /// RFC 9162 §2.1.3.2. Throws `inclusionProofInvalid` unless `proof` leads from `leafHash` at
    /// `index` to `root` of a tree of `size` leaves.
    public static func verifyInclusion(leafHash: [UInt8], index: UInt64, size: UInt64, proof: [[UInt8]], root: [UInt8]) throws {
        let refusal = TransparencyLogError.inclusionProofInvalid(index: index, treeSize: size)
        guard index < size, leafHash.count == MerkleHash.size, proof.allSatisfy({ $0.count == MerkleHash.size }) else { throw refusal }
        var fn = index, sn = size - 1, r = leafHash
        for p in proof {
            guard sn != 0 else { throw refusal }
            if fn & 1 == 1 || fn == sn {
                r = MerkleHash.node(p, r)
                shiftToOddOrZero(&fn, &sn)
            } else {
                r = MerkleHash.node(r, p)
            }
            fn >>= 1; sn >>= 1
        }
        guard sn == 0, r == root else { throw refusal }
    }

    /// "If LSB(fn) is not set, right-shift both fn and sn equally until either LSB(fn) is set or
    /// fn is 0" (RFC 9162 §2.1.3.2 and §2.1.4.2).
    private static func shiftToOddOrZero(_ fn: inout UInt64, _ sn: inout UInt64) {
        while fn & 1 == 0 && fn != 0 { fn >>= 1; sn >>= 1 }
    }

    /// RFC 9162 §2.1.4.2, with the two cases it leaves to the caller: equal sizes need an empty
    /// proof and equal roots; the old size 0 (nothing accepted yet) needs an empty proof.
    public static func verifyConsistency(from old: UInt64, oldRoot: [UInt8], to new: UInt64, newRoot: [UInt8], proof: [[UInt8]]) throws {
        let refusal = TransparencyLogError.consistencyProofInvalid(from: old, to: new)
        guard old <= new, proof.allSatisfy({ $0.count == MerkleHash.size }) else { throw refusal }
        if old == 0 {
            guard proof.isEmpty else { throw refusal }
            return
        }
        if old == new {
            guard proof.isEmpty, oldRoot == newRoot else { throw refusal }
            return
        }
        guard !proof.isEmpty else { throw refusal }
        var path = proof
        if old.nonzeroBitCount == 1 { path.insert(oldRoot, at: 0) }
        var fn = old - 1, sn = new - 1
        while fn & 1 == 1 { fn >>= 1; sn >>= 1 }
        var fr = path[0], sr = path[0]
        for c in path.dropFirst() {
            guard sn != 0 else { throw refusal }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleHash.node(c, fr)
                sr = MerkleHash.node(c, sr)
                shiftToOddOrZero(&fn, &sn)
            } else {
                sr = MerkleHash.node(sr, c)
            }
            fn >>= 1; sn >>= 1
        }
        guard fr == oldRoot, sr == newRoot, sn == 0 else { throw refusal }
    }
}
