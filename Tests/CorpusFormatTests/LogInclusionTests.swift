import Foundation
import Testing
@testable import CorpusFormat

/// The inclusion proof a client keeps beside an installed corpus: it round-trips byte for byte,
/// verifies offline against its checkpoint, stays under 1 KB for logs of everyday sizes, and a
/// proof or leaf changed in it no longer verifies.
@Suite struct LogInclusionTests {
    func sample(size: UInt64, index: UInt64) throws -> LogInclusion {
        let leaves = (0..<size).map { i -> [UInt8] in
            (try? LogLeaf(catalogID: "harbor", version: Int(i) + 1, documentBytes: Array("catalog \(i)".utf8)).bytes) ?? []
        }
        let hashes = leaves.map { MerkleHash.leaf($0) }
        let subtree: MerkleTreeHead.SubtreeHash = { level, at in
            MerkleTreeHead.root(leafHashes: Array(hashes[Int(at << UInt64(level))..<Int((at + 1) << UInt64(level))]))
        }
        let proof = try MerkleProof.inclusionProof(index: index, size: size, subtree: subtree)
        let checkpoint = try Checkpoint(origin: "corpussync/harbor", size: size, rootHash: MerkleTreeHead.root(leafHashes: hashes))
        var note = try SignedNote(text: checkpoint.text)
        try note.sign(with: try SecretKey.generate().noteSigner(keyName: "corpussync/harbor"))
        return LogInclusion(leaf: try LogLeaf(bytes: leaves[Int(index)]), index: index, proof: proof, note: note.bytes)
    }

    @Test(arguments: [(UInt64(1), UInt64(0)), (300, 257), (10_000, 9_999)])
    func aKeptProofRoundTripsAndVerifies(size: UInt64, index: UInt64) throws {
        let kept = try sample(size: size, index: index)
        let read = try LogInclusion(bytes: kept.bytes)
        #expect(read == kept)
        #expect(try read.verify().size == size)
        #expect(kept.bytes.count < 1024, "\(kept.bytes.count) bytes")
    }

    @Test func aProofKeptWithACorpusReadsItsNamedNoteAndRefusesOneOfAnotherSize() throws {
        let kept = try sample(size: 300, index: 257)
        let other = try sample(size: 299, index: 257)
        let bytes = kept.keptBytes(treeSize: 300)
        #expect(try LogInclusion(kept: bytes) { $0 == 300 ? kept.note : [] } == kept)
        #expect(try LogInclusion(kept: kept.bytes) { _ in [] } == kept, "a v1 file holds its note")
        #expect(throws: TransparencyLogError.malformedLeaf(reason: "inclusion proof: it names the checkpoint of size 300; the note kept holds size 299")) {
            try LogInclusion(kept: bytes) { _ in other.note }
        }
        #expect(throws: TransparencyLogError.malformedLeaf(reason: "inclusion proof: text after the checkpoint line")) {
            try LogInclusion(kept: bytes + Array("\n".utf8)) { _ in kept.note }
        }
    }

    @Test func aChangedLeafOrProofNoLongerVerifies() throws {
        let kept = try sample(size: 300, index: 257)
        let otherLeaf = LogInclusion(leaf: try LogLeaf(catalogID: "harbor", version: 258, documentBytes: Array("another".utf8)),
                                     index: kept.index, proof: kept.proof, note: kept.note)
        #expect(throws: TransparencyLogError.inclusionProofInvalid(index: 257, treeSize: 300)) { try otherLeaf.verify() }
        var proof = kept.proof
        proof[0][0] ^= 1
        let otherProof = LogInclusion(leaf: kept.leaf, index: kept.index, proof: proof, note: kept.note)
        #expect(throws: TransparencyLogError.inclusionProofInvalid(index: 257, treeSize: 300)) { try otherProof.verify() }
    }
}

/// The file kept with each installed corpus at the worst size near a million leaves: the last leaf
/// of a tree of 2^20 (20 proof hashes, the most below 2^20 + 1), the longest catalog id, the
/// longest kind word (`catalog`) and a seven-digit version. The goal is under 1 KB.
@Suite struct LogKeptProofSizeTests {
    @Test func theKeptProofOfTheLastLeafOfAMillionIsUnder1KB() throws {
        let id = String(repeating: "c", count: Identifier.maxLength)
        let size: UInt64 = 1 << 20
        let leaf = try LogLeaf(catalogID: id, version: 1_048_576, documentBytes: Array("catalog".utf8))
        let proof = (0..<20).map { i in [UInt8](repeating: UInt8(i), count: MerkleHash.size) }
        let checkpoint = try Checkpoint(origin: TreeLog.origin(catalogID: id), size: size, rootHash: [UInt8](repeating: 1, count: MerkleHash.size))
        var note = try SignedNote(text: checkpoint.text)
        try note.sign(with: try SecretKey.generate().noteSigner(keyName: TreeLog.origin(catalogID: id)))
        let kept = LogInclusion(leaf: leaf, index: size - 1, proof: proof, note: note.bytes)
        let bytes = kept.keptBytes(treeSize: size)
        #expect(bytes.count < 1024, "the kept proof has \(bytes.count) bytes")
        #expect(bytes.count == 1_020, "docs/format.md gives this figure")
        #expect(try LogInclusion(kept: bytes) { $0 == size ? note.bytes : [] } == kept)
    }
}
