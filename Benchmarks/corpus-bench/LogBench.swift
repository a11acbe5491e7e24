import CorpusFormat
import CorpusPublisher
import CorpusSync
import Foundation

/// `corpus-bench log`: what one refresh costs a client in transparency-log traffic, at 10, 10,000,
/// 1,000,000 and 1,048,574 leaves (the worst right edge near a million). Each log is generated with `TransparencyLogWriter` (N leaves, then what
/// one refresh finds new), served by `corpusd serve`, and checked the way a refresh checks it
/// (`RemoteLog`, `LogRefreshProofs`): the client holds checkpoint N and accepts the newest leaf,
/// fetching the checkpoint and the tiles the consistency and inclusion proofs read, over HTTP.
/// Two growths are measured: one new leaf, and one publish, which appends two (the flat catalog
/// and its top document, `TreeLogAppender`; the client accepts the top document's leaf, the last).
/// Reports the bytes fetched (goal ≤ 20 KB), the median time of the whole check and of the
/// verification alone, and the size of the inclusion proof a client keeps with a corpus (goal < 1 KB).
enum LogBench {
    static func run(_ args: [String]) async throws {
        var options = BenchArguments(args)
        let work = options.folder("--work", default: ".bench/log")
        let runs = options.int("--runs", default: 7)
        let bin = options.value("--bin") ?? BenchProcess.productsDirectory
        // 1,048,574: the worst right edge below 2^24 leaves (the new size 2^20 - 1 fills the partial
        // tiles of levels 0 and 1 and makes the last leaf's proof as long as any).
        let sizes = (options.value("--sizes") ?? "10,10000,1000000,1048574").split(separator: ",").compactMap { UInt64($0) }
        try options.refuseUnread()
        let key = try SecretKey(keyID: KeyID(bytes: Array(repeating: 7, count: 8)), seed: Array(repeating: 9, count: 32))
        let origin = TreeLog.origin(catalogID: "bench")
        for n in sizes {
            for growth in Growth.allCases {
                let tree = "\(work)/tree-\(n)\(growth.treeSuffix)"
                let held = try generate(tree: tree, leaves: n, growth: growth, key: key, origin: origin)
                let server = try BenchServer(corpusd: "\(bin)/corpusd", root: tree)
                defer { server.stop() }
                let client = try HTTPClient(configuration: HTTPClientConfiguration())
                let log = RemoteLog(client: client, source: Source(baseURL: server.url, isOrigin: true))
                let verifier = try key.publicKey.noteVerifier(keyName: origin)
                let accepted = try require(growth.leaves(after: n).last, "the accepted leaf")
                let leafHash = MerkleHash.leaf(accepted)
                var totals: [Double] = [], verifies: [Double] = []
                var bytes = 0, kept = 0, noteBytes = 0
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
                    // What each installed corpus keeps (v2): the proof, naming the note the remote keeps once.
                    kept = LogInclusion(leaf: try LogLeaf(bytes: accepted), index: index, proof: proofs.inclusion, note: note)
                        .keptBytes(treeSize: checkpoint.size).count
                    noteBytes = note.count
                }
                let grown = "\(n) leaves + \(growth.label)"
                print("leaves=\(n) growth=\(growth.treeSuffix.isEmpty ? "one-leaf" : "one-publish") bytes=\(bytes) kept_proof=\(kept) kept_note=\(noteBytes) "
                      + "check_ms=\(BenchProcess.median(totals)) verify_ms=\(BenchProcess.median(verifies))")
                BenchProcess.result("log refresh, \(grown): bytes fetched", Double(bytes), "B", goal: "<=20480")
                BenchProcess.result("log refresh, \(grown): check (fetch + verify)", BenchProcess.median(totals), "ms", goal: "-")
                BenchProcess.result("log refresh, \(grown): verify", BenchProcess.median(verifies), "ms", goal: "-")
                BenchProcess.result("log inclusion proof kept with a corpus, \(grown)", Double(kept), "B", goal: "<1024")
            }
        }
    }

    /// What the log gained since the checkpoint the client holds.
    enum Growth: CaseIterable {
        /// One leaf: a catalog version.
        case oneLeaf
        /// One `corpusd publish`: the flat catalog's leaf and its top document's.
        case onePublish

        var label: String { self == .oneLeaf ? "1" : "1 publish (2 leaves)" }
        var treeSuffix: String { self == .oneLeaf ? "" : "-publish" }

        /// The leaves appended after the first `n`, the accepted one last.
        func leaves(after n: UInt64) -> [[UInt8]] {
            switch self {
            case .oneLeaf: return [leaf(n)]
            case .onePublish:
                let document = Array("catalog \(n)".utf8), version = Int(n) + 1
                return [(try? LogLeaf(catalogID: "bench", version: version, documentBytes: document).bytes) ?? [],
                        (try? LogLeaf(catalogID: "bench", version: version, topDocumentBytes: document).bytes) ?? []]
            }
        }
    }

    /// Leaf i of a generated log: a catalog leaf of version i + 1.
    static func leaf(_ i: UInt64) -> [UInt8] {
        (try? LogLeaf(catalogID: "bench", version: Int(i) + 1, documentBytes: Array("catalog \(i)".utf8)).bytes) ?? []
    }

    /// A tree whose log has `leaves` leaves and then `growth`'s (kept between runs); returns the
    /// checkpoint of the first `leaves`.
    static func generate(tree: String, leaves: UInt64, growth: Growth, key: SecretKey, origin: String) throws -> Checkpoint {
        let added = growth.leaves(after: leaves)
        let heldPath = "\(tree)/held-checkpoint"
        if let held = FileManager.default.contents(atPath: heldPath), let writer = try? TransparencyLogWriter(folder: "\(tree)/log", origin: origin, signer: key.noteSigner(keyName: origin)),
           (try? writer.checkpoint())??.size == leaves + UInt64(added.count) {
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
        _ = try writer.append(added)
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
