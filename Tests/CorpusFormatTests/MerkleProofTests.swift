import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing

@Suite struct MerkleProofTests {
    /// RFC 6962 reference data (google/certificate-transparency's merkle tree tests, also
    /// trillian's): the roots of the trees of the first 1…8 of these leaves, and the empty tree.
    static let ctLeaves: [[UInt8]] = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]
        .map { Hex.decode($0)! }
    static let ctRoots = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    @Test func rootsMatchTheRFC6962ReferenceData() {
        for size in 0...8 {
            let root = MerkleTreeHead.root(leafHashes: Self.ctLeaves.prefix(size).map { MerkleHash.leaf($0) })
            #expect(Hex.encode(root) == Self.ctRoots[size], "size \(size)")
        }
    }

    /// Published known answers for the proofs over the same eight leaves (RFC 6962 test data as
    /// transparency-dev/merkle's testonly/reference_test.go lists them): fixed hashes, not
    /// computed by this project's reference tree, so the reference itself is pinned too.
    static let ctInclusionProofs: [(index: UInt64, size: UInt64, proof: [String])] = [
        (0, 1, []),
        (0, 2, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7"]),
        (1, 2, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"]),
        (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
        (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
        (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
        (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    ]
    static let ctConsistencyProofs: [(old: UInt64, new: UInt64, proof: [String])] = [
        (1, 1, []),
        (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
        (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
        (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    ]

    @Test func proofsMatchThePublishedKnownAnswers() throws {
        let reference = ReferenceMerkleTree(leaves: Self.ctLeaves)
        let root = { (size: UInt64) in Hex.decode(Self.ctRoots[Int(size)])! }
        for v in Self.ctInclusionProofs {
            let proof = try MerkleProof.inclusionProof(index: v.index, size: v.size, subtree: reference.subtree)
            #expect(proof.map { Hex.encode($0) } == v.proof, "leaf \(v.index) of \(v.size)")
            try MerkleProof.verifyInclusion(leafHash: MerkleHash.leaf(Self.ctLeaves[Int(v.index)]), index: v.index, size: v.size,
                                            proof: v.proof.map { Hex.decode($0)! }, root: root(v.size))
        }
        for v in Self.ctConsistencyProofs {
            let proof = try MerkleProof.consistencyProof(from: v.old, to: v.new, subtree: reference.subtree)
            #expect(proof.map { Hex.encode($0) } == v.proof, "\(v.old) to \(v.new)")
            try MerkleProof.verifyConsistency(from: v.old, oldRoot: root(v.old), to: v.new, newRoot: root(v.new), proof: v.proof.map { Hex.decode($0)! })
        }
    }

    @Test func rootsMatchTheReferenceAtEverySizeTo300() throws {
        let reference = ReferenceMerkleTree(leaves: testLeaves(300))
        let hashes = reference.leaves.map { MerkleHash.leaf($0) }
        for size in 1...300 {
            let expected = reference.mth(0..<size)
            #expect(MerkleTreeHead.root(leafHashes: Array(hashes.prefix(size))) == expected, "size \(size)")
            #expect(try MerkleTreeHead.root(size: UInt64(size), subtree: reference.subtree) == expected, "size \(size)")
        }
    }

    /// Every leaf of every tree of 1…300 leaves: the proof equals PATH and verifies; a changed
    /// hash, leaf, index or root does not.
    @Test func inclusionProofsMatchTheReferenceForEveryLeafAndSize() throws {
        let reference = ReferenceMerkleTree(leaves: testLeaves(300))
        for size in 1...300 {
            let root = reference.mth(0..<size)
            for index in 0..<size {
                let proof = try MerkleProof.inclusionProof(index: UInt64(index), size: UInt64(size), subtree: reference.subtree)
                #expect(proof == reference.path(index, 0..<size), "leaf \(index) of \(size)")
                let leaf = MerkleHash.leaf(reference.leaves[index])
                try MerkleProof.verifyInclusion(leafHash: leaf, index: UInt64(index), size: UInt64(size), proof: proof, root: root)
                if index % 7 == 0 || size % 64 <= 1 {
                    try Self.expectInclusionRefused(leaf: leaf, index: index, size: size, proof: proof, root: root)
                }
            }
        }
    }

    static func expectInclusionRefused(leaf: [UInt8], index: Int, size: Int, proof: [[UInt8]], root: [UInt8]) throws {
        let refusal = TransparencyLogError.inclusionProofInvalid(index: UInt64(index), treeSize: UInt64(size))
        var otherLeaf = leaf
        otherLeaf[0] ^= 1
        #expect(throws: refusal) { try MerkleProof.verifyInclusion(leafHash: otherLeaf, index: UInt64(index), size: UInt64(size), proof: proof, root: root) }
        var otherRoot = root
        otherRoot[31] ^= 1
        #expect(throws: refusal) { try MerkleProof.verifyInclusion(leafHash: leaf, index: UInt64(index), size: UInt64(size), proof: proof, root: otherRoot) }
        for i in proof.indices {
            var changed = proof
            changed[i][5] ^= 0x80
            #expect(throws: refusal) { try MerkleProof.verifyInclusion(leafHash: leaf, index: UInt64(index), size: UInt64(size), proof: changed, root: root) }
        }
        if !proof.isEmpty {
            #expect(throws: refusal) { try MerkleProof.verifyInclusion(leafHash: leaf, index: UInt64(index), size: UInt64(size), proof: proof.dropLast(), root: root) }
        }
        #expect(throws: refusal) { try MerkleProof.verifyInclusion(leafHash: leaf, index: UInt64(index), size: UInt64(size), proof: proof + [root], root: root) }
        if size > 1 {
            let other = (index + 1) % size
            #expect(throws: TransparencyLogError.inclusionProofInvalid(index: UInt64(other), treeSize: UInt64(size))) {
                try MerkleProof.verifyInclusion(leafHash: leaf, index: UInt64(other), size: UInt64(size), proof: proof, root: root)
            }
        }
    }

    /// Every pair 1 ≤ m ≤ n ≤ 300: the proof equals PROOF(m, D[n]) and verifies; a changed hash
    /// or either root does not.
    @Test func consistencyProofsMatchTheReferenceForEveryPairTo300() throws {
        let reference = ReferenceMerkleTree(leaves: testLeaves(300))
        for new in 1...300 {
            let newRoot = reference.mth(0..<new)
            for old in 1...new {
                let oldRoot = reference.mth(0..<old)
                let proof = try MerkleProof.consistencyProof(from: UInt64(old), to: UInt64(new), subtree: reference.subtree)
                #expect(proof == reference.subproof(old, 0..<new, true), "\(old) to \(new)")
                try MerkleProof.verifyConsistency(from: UInt64(old), oldRoot: oldRoot, to: UInt64(new), newRoot: newRoot, proof: proof)
                guard old % 5 == 0 || new % 64 <= 1 || old == new else { continue }
                let refusal = TransparencyLogError.consistencyProofInvalid(from: UInt64(old), to: UInt64(new))
                var forked = newRoot
                forked[0] ^= 1
                #expect(throws: refusal) { try MerkleProof.verifyConsistency(from: UInt64(old), oldRoot: oldRoot, to: UInt64(new), newRoot: forked, proof: proof) }
                #expect(throws: refusal) { try MerkleProof.verifyConsistency(from: UInt64(old), oldRoot: forked, to: UInt64(new), newRoot: newRoot, proof: proof) }
                for i in proof.indices {
                    var changed = proof
                    changed[i][9] ^= 4
                    #expect(throws: refusal) { try MerkleProof.verifyConsistency(from: UInt64(old), oldRoot: oldRoot, to: UInt64(new), newRoot: newRoot, proof: changed) }
                }
                if !proof.isEmpty {
                    #expect(throws: refusal) { try MerkleProof.verifyConsistency(from: UInt64(old), oldRoot: oldRoot, to: UInt64(new), newRoot: newRoot, proof: proof.dropLast()) }
                }
            }
        }
    }

    /// A proof of a smaller tree, offered for a larger size whose "root" is the smaller tree's:
    /// every hash matches, only the sizes say the path is too short (RFC 9162's final sn == 0).
    @Test func aProofOfASmallerTreeIsRefusedForALargerSize() {
        let reference = ReferenceMerkleTree(leaves: testLeaves(4))
        let leaf = reference.mth(0..<1)
        #expect(throws: TransparencyLogError.inclusionProofInvalid(index: 0, treeSize: 2)) {
            try MerkleProof.verifyInclusion(leafHash: leaf, index: 0, size: 2, proof: [], root: leaf)
        }
        #expect(throws: TransparencyLogError.inclusionProofInvalid(index: 0, treeSize: 4)) {
            try MerkleProof.verifyInclusion(leafHash: leaf, index: 0, size: 4, proof: [reference.mth(1..<2)], root: reference.mth(0..<2))
        }
        #expect(throws: TransparencyLogError.consistencyProofInvalid(from: 1, to: 4)) {
            try MerkleProof.verifyConsistency(from: 1, oldRoot: leaf, to: 4, newRoot: reference.mth(0..<2), proof: [reference.mth(1..<2)])
        }
    }

    @Test func proofsOutsideTheTreeAreACallersMistake() {
        #expect(throws: TransparencyLogError.outOfRange(reason: "leaf 3 is not in a tree of size 3")) { try MerkleProof.inclusionRanges(index: 3, size: 3) }
        #expect(throws: TransparencyLogError.outOfRange(reason: "no consistency proof from tree size 4 to 3")) { try MerkleProof.consistencyRanges(from: 4, to: 3) }
        #expect(throws: TransparencyLogError.outOfRange(reason: "no consistency proof from tree size 0 to 3")) { try MerkleProof.consistencyRanges(from: 0, to: 3) }
        #expect(!TransparencyLogError.outOfRange(reason: "").isVerificationRefusal)
        #expect(TransparencyLogError.consistencyProofInvalid(from: 1, to: 2).isVerificationRefusal)
    }
}
