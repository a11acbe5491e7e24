import CorpusFormat
import Foundation

/// A second Merkle tree implementation, written straight from the recursive definitions of
/// RFC 6962 §2.1 (MTH, PATH, PROOF/SUBPROOF), memoised by range so trees of 300 leaves stay quick.
/// The production code (`MerkleProof`, `MerkleTreeHead`) is iterative and reads subtrees through
/// a closure; the two agreeing on every (m, n) is the known-answer check.
public final class ReferenceMerkleTree {
    public let leaves: [[UInt8]]
    private var memo: [Range<Int>: [UInt8]] = [:]

    public init(leaves: [[UInt8]]) { self.leaves = leaves }

    private static func k(_ n: Int) -> Int {
        var k = 1
        while k * 2 < n { k *= 2 }
        return k
    }

    /// MTH(D[lo:hi]).
    public func mth(_ range: Range<Int>) -> [UInt8] {
        if let hash = memo[range] { return hash }
        let n = range.count
        let hash: [UInt8]
        if n == 0 {
            hash = SHA256.hash([UInt8]())
        } else if n == 1 {
            hash = SHA256.hash([0x00] + leaves[range.lowerBound])
        } else {
            let k = Self.k(n)
            hash = SHA256.hash([0x01] + mth(range.lowerBound..<(range.lowerBound + k)) + mth((range.lowerBound + k)..<range.upperBound))
        }
        memo[range] = hash
        return hash
    }

    /// PATH(m, D[lo:hi]), m relative to lo.
    public func path(_ m: Int, _ range: Range<Int>) -> [[UInt8]] {
        let n = range.count
        guard n > 1 else { return [] }
        let k = Self.k(n), lo = range.lowerBound
        if m < k { return path(m, lo..<(lo + k)) + [mth((lo + k)..<range.upperBound)] }
        return path(m - k, (lo + k)..<range.upperBound) + [mth(lo..<(lo + k))]
    }

    /// SUBPROOF(m, D[lo:hi], b).
    public func subproof(_ m: Int, _ range: Range<Int>, _ b: Bool) -> [[UInt8]] {
        let n = range.count, lo = range.lowerBound
        if m == n { return b ? [] : [mth(range)] }
        let k = Self.k(n)
        if m <= k { return subproof(m, lo..<(lo + k), b) + [mth((lo + k)..<range.upperBound)] }
        return subproof(m - k, (lo + k)..<range.upperBound, false) + [mth(lo..<(lo + k))]
    }

    /// The subtree closure the production code reads hashes through.
    public var subtree: MerkleTreeHead.SubtreeHash {
        { level, index in
            let lo = Int(index) << level
            return self.mth(lo..<(lo + (1 << level)))
        }
    }
}

/// The leaves the transparency-log tests use: leaf i is "leaf <i>" (distinct, of varying length).
public func testLeaves(_ count: Int) -> [[UInt8]] { (0..<count).map { Array("leaf \($0)".utf8) } }

@available(*, unavailable)
extension ReferenceMerkleTree: Sendable {}
