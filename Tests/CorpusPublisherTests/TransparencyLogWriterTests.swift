import CorpusFormat
import CorpusPublisher
import CorpusTestSupport
import Foundation
import Testing

/// The log writer: tiles, entry bundles and checkpoints on disk at every size 1…300 (each
/// boundary of a 256-hash tile), proofs read back from those files, and refusals that leave the
/// folder as it was.
@Suite struct TransparencyLogWriterTests {
    static let origin = "corpus.example/log"
    static let seed = [UInt8](repeating: 0x5a, count: 32)

    static func writer(_ folder: String) throws -> TransparencyLogWriter {
        try TransparencyLogWriter(folder: folder, origin: origin, signer: try Ed25519NoteSigner(keyName: origin, seed: seed))
    }

    /// A log of 300 leaves appended one by one, so a checkpoint (and its partial tiles) exists at every size.
    static func leafByLeafLog(_ dir: TempDirectory) throws -> ReferenceMerkleTree {
        let reference = ReferenceMerkleTree(leaves: testLeaves(300))
        let log = try writer(dir.path)
        for (i, leaf) in reference.leaves.enumerated() {
            let appended = try log.append([leaf])
            #expect(appended.firstIndex == UInt64(i))
            #expect(appended.checkpoint.size == UInt64(i + 1))
            #expect(appended.checkpoint.rootHash == reference.mth(0..<(i + 1)), "size \(i + 1)")
        }
        return reference
    }

    @Test func everySizeTo300ServesItsTilesAndProvesFromThem() throws {
        let dir = TempDirectory("tlog")
        let reference = try Self.leafByLeafLog(dir)
        let folder = LogFolder(path: dir.path)
        let verifier = try Ed25519NoteSigner(keyName: Self.origin, seed: Self.seed).verifier
        let (checkpoint, _) = try Checkpoint.open(try #require(try folder.checkpointBytes()), origin: Self.origin, verifiers: [verifier])
        #expect(checkpoint.size == 300)
        for size in 1...300 {
            for tile in TilePath.all(treeSize: UInt64(size)) {
                #expect(FileIO.exists(folder.filePath(tile)), "\(tile) of size \(size)")
            }
            let reader = TileHashReader(treeSize: UInt64(size), fetch: folder.tile)
            #expect(try reader.root() == reference.mth(0..<size))
            for index in Set([0, size / 2, size - 1, min(255, size - 1)]) {
                let proof = try reader.inclusionProof(index: UInt64(index))
                #expect(proof == reference.path(index, 0..<size), "leaf \(index) of \(size)")
            }
            for old in Set([1, size / 2, size - 1, min(256, size), size]) where old >= 1 {
                #expect(try reader.consistencyProof(from: UInt64(old)) == reference.subproof(old, 0..<size, true), "\(old) to \(size)")
            }
        }
        // The leaves are served too: the entry bundles hold them in order.
        let bundles = [TilePath(kind: .entries, index: 0), TilePath(kind: .entries, index: 1, partialWidth: 44)]
        #expect(try bundles.flatMap { try EntryBundle.decode(try folder.tile($0), path: $0) } == reference.leaves)
    }

    @Test func batchesWriteTheSameTreeAsSingleLeaves() throws {
        let one = TempDirectory("tlog-one"), batched = TempDirectory("tlog-batch")
        _ = try Self.leafByLeafLog(one)
        let leaves = testLeaves(300)
        let log = try Self.writer(batched.path)
        var at = 0
        for count in [0, 1, 254, 1, 44] {
            let appended = try log.append(Array(leaves[at..<(at + count)]))
            #expect(appended.firstIndex == UInt64(at))
            at += count
        }
        for tile in TilePath.all(treeSize: 300) {
            #expect(try LogFolder(path: batched.path).tile(tile) == LogFolder(path: one.path).tile(tile), "\(tile)")
        }
        #expect(try LogFolder(path: batched.path).checkpointBytes() == LogFolder(path: one.path).checkpointBytes() || !CryptoImplementation.deterministicSignatures)
        // The partial tiles of earlier checkpoints stay for clients that hold those checkpoints.
        #expect(FileIO.exists(batched.url("tile/0/000.p/1")) && FileIO.exists(batched.url("tile/0/000.p/255")))
    }

    /// The files an append builds on (the right edge: partial tiles and the partial entry bundle)
    /// must give the checkpoint's root, or the writer would sign a tree that forks from it.
    @Test(arguments: ["tile/0/001.p/44", "tile/1/000.p/1", "tile/entries/001.p/44"])
    func aRightEdgeFileChangedBehindTheWritersBackIsRefusedAndNothingIsWritten(_ path: String) throws {
        let dir = TempDirectory("tlog-tamper")
        let log = try Self.writer(dir.path)
        _ = try log.append(testLeaves(300))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.url(path))))
        bytes[bytes.count - 3] ^= 1
        try dir.write(path, Data(bytes))
        let attempt = DirectorySnapshot.attempt(leaving: dir.path) { _ = try log.append([Array("next".utf8)]) }
        #expect(attempt.error as? TransparencyLogError == .tilesDisagreeWithCheckpoint(treeSize: 300))
        #expect(attempt.unchanged)
    }

    @Test func aCheckpointNotSignedByTheLogKeyIsRefusedAndNothingIsWritten() throws {
        let dir = TempDirectory("tlog-key")
        _ = try Self.writer(dir.path).append(testLeaves(3))
        let other = try TransparencyLogWriter(folder: dir.path, origin: Self.origin,
                                              signer: try Ed25519NoteSigner(keyName: Self.origin, seed: [UInt8](repeating: 1, count: 32)))
        let attempt = DirectorySnapshot.attempt(leaving: dir.path) { _ = try other.append([Array("next".utf8)]) }
        #expect(attempt.error as? TransparencyLogError == .noTrustedSignature)
        #expect(attempt.unchanged)
    }

    @Test func aLeafTooLargeForAnEntryBundleIsRefusedAndNothingIsWritten() throws {
        let dir = TempDirectory("tlog-large")
        let log = try Self.writer(dir.path)
        _ = try log.append(testLeaves(2))
        let attempt = DirectorySnapshot.attempt(leaving: dir.path) { _ = try log.append([[1], [UInt8](repeating: 0, count: 65536)]) }
        #expect(attempt.error as? TransparencyLogError == .leafTooLarge(size: 65536))
        #expect(attempt.unchanged)
    }

    @Test func theLogKeyMustBeNamedForTheOrigin() throws {
        #expect(throws: TransparencyLogError.malformedKey(reason: "the log key's name must be the log's origin corpus.example/log")) {
            try TransparencyLogWriter(folder: "/nonexistent", origin: Self.origin, signer: try Ed25519NoteSigner(keyName: "other.example/log", seed: Self.seed))
        }
    }
}
