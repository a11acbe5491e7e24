import CorpusFormat
import CorpusPublisher
import CorpusSync
import Foundation

/// `corpus-bench log`: what one refresh costs a client in transparency-log traffic, at 10, 10,000
/// and 1,000,000 leaves. Each log is generated with `TransparencyLogWriter` (N leaves, then one
/// more), served by `corpusd serve`, and checked the way a refresh checks it (`RemoteLog`,
/// `LogRefreshProofs`): the client holds checkpoint N and accepts the new leaf at N+1, fetching the
/// checkpoint and the tiles the consistency and inclusion proofs read, over HTTP. Reports the bytes
/// fetched (goal ≤ 20 KB), the median time of the whole check and of the verification alone, and
/// the size of the inclusion proof a client keeps with a corpus (goal < 1 KB).
enum LogBench {
    static func run(_ args: [String]) async throws {
        var options = BenchArguments(args)
        let work = options.folder("--work", default: ".bench/log")
        let runs = options.int("--runs", default: 7)
        let bin = options.value("--bin") ?? BenchProcess.productsDirectory
        let sizes = (options.value("--sizes") ?? "10,10000,1000000").split(separator: ",").compactMap { UInt64($0) }
        try options.refuseUnread()
        let key = try SecretKey(keyID: KeyID(bytes: Array(repeating: 7, count: 8)), seed: Array(repeating: 9, count: 32))
        let origin = TreeLog.origin(catalogID: "bench")
        for n in sizes {
            let tree = "\(work)/tree-\(n)"
            let held = try generate(tree: tree, leaves: n, key: key, origin: origin)
            let server = try BenchServer(corpusd: "\(bin)/corpusd", root: tree)
            defer { server.stop() }
            let client = try HTTPClient(configuration: HTTPClientConfiguration())
            let log = RemoteLog(client: client, source: Source(baseURL: server.url, isOrigin: true))
            let verifier = try key.publicKey.noteVerifier(keyName: origin)
            let leafHash = MerkleHash.leaf(leaf(n))
            var totals: [Double] = [], verifies: [Double] = []
            var bytes = 0, kept = 0
            for _ in 0..<runs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let note = try require(try await log.checkpointBytes(), "log/checkpoint")
                let checkpoint = try Checkpoint.open(note, origin: origin, verifiers: [verifier]).checkpoint
                let (proofs, tileBytes) = try await log.reading(treeSize: checkpoint.size, prefetch: { try LogRefreshProofs.prefetch($0, from: held.size) }) {
                    try LogRefreshProofs.compute($0, from: held.size, leafHash: leafHash, searched: 512)
                }
                let t1 = DispatchTime.now().uptimeNanoseconds
                try MerkleProof.verifyConsistency(from: held.size, oldRoot: held.rootHash, to: checkpoint.size, newRoot: checkpoint.rootHash, proof: proofs.consistency)
                let index = try require(proofs.index, "the new leaf")
                try MerkleProof.verifyInclusion(leafHash: leafHash, index: index, size: checkpoint.size, proof: proofs.inclusion, root: checkpoint.rootHash)
                let t2 = DispatchTime.now().uptimeNanoseconds
                totals.append(Double(t2 - t0) / 1e6)
                verifies.append(Double(t2 - t1) / 1e6)
                bytes = note.count + tileBytes
                kept = LogInclusion(leaf: try LogLeaf(bytes: leaf(n)), index: index, proof: proofs.inclusion, note: note).bytes.count
            }
            print("leaves=\(n) bytes=\(bytes) kept_proof=\(kept) check_ms=\(BenchProcess.median(totals)) verify_ms=\(BenchProcess.median(verifies))")
            BenchProcess.result("log refresh, \(n) leaves + 1: bytes fetched", Double(bytes), "B", goal: "<=20480")
            BenchProcess.result("log refresh, \(n) leaves + 1: check (fetch + verify)", BenchProcess.median(totals), "ms", goal: "-")
            BenchProcess.result("log refresh, \(n) leaves + 1: verify", BenchProcess.median(verifies), "ms", goal: "-")
            BenchProcess.result("log inclusion proof kept with a corpus, \(n + 1) leaves", Double(kept), "B", goal: "<1024")
        }
    }

    /// Leaf i of a generated log: a catalog leaf of version i + 1.
    static func leaf(_ i: UInt64) -> [UInt8] {
        (try? LogLeaf(catalogID: "bench", version: Int(i) + 1, documentBytes: Array("catalog \(i)".utf8)).bytes) ?? []
    }

    /// A tree whose log has `leaves` + 1 leaves (kept between runs); returns the checkpoint of the first `leaves`.
    static func generate(tree: String, leaves: UInt64, key: SecretKey, origin: String) throws -> Checkpoint {
        let heldPath = "\(tree)/held-checkpoint"
        if let held = FileManager.default.contents(atPath: heldPath), let writer = try? TransparencyLogWriter(folder: "\(tree)/log", origin: origin, signer: key.noteSigner(keyName: origin)),
           (try? writer.checkpoint())??.size == leaves + 1 {
            return try Checkpoint(text: try SignedNote(parsing: [UInt8](held)).text)
        }
        FileIO.remove(tree)
        try FileIO.createDirectory(tree)
        let writer = try TransparencyLogWriter(folder: "\(tree)/log", origin: origin, signer: key.noteSigner(keyName: origin))
        var first = try writer.append([])
        var at: UInt64 = 0
        while at < leaves {
            let batch = min(leaves - at, 65_536)
            first = try writer.append((at..<(at + batch)).map(leaf))
            at += batch
        }
        try FileIO.writeAtomically(Data(first.note), to: heldPath)
        _ = try writer.append([leaf(leaves)])
        return first.checkpoint
    }
}

/// Unwraps or stops the benchmark with what was missing.
func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw BenchFailure("\(what) missing") }
    return value
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
