import Foundation
import Testing
import CorpusFormat
@testable import CorpusEngine
import CorpusTestSupport

@Suite struct VectorIndexTests {
    static func unit(_ v: [Float]) -> [Float] {
        let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return v.map { $0 / n }
    }

    static func gaussian(_ rng: inout SplitMix64, _ dim: Int) -> [Float] {
        (0..<dim).map { _ in
            // Box–Muller from two uniforms in (0, 1].
            let u1 = Double(rng.next() >> 11 + 1) / Double(1 << 53), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            return Float((-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
        }
    }

    static func writeIndex(_ path: String, _ vectors: [[Float]], encoding: VectorFileHeader.Encoding) throws {
        let w = try VectorFileWriter(path: path, encoding: encoding, dimension: vectors[0].count, rows: vectors.count)
        for v in vectors { try w.append(v) }
        try w.finish()
    }

    /// Exact float top-k, the reference the quantized scan is measured against.
    static func reference(_ vectors: [[Float]], _ q: [Float], _ k: Int) -> [Int] {
        let scores = vectors.map { v in zip(v, q).reduce(Float(0)) { $0 + $1.0 * $1.1 } }
        return scores.indices.sorted { scores[$0] > scores[$1] }.prefix(k).filter { scores[$0] > 0 }
    }

    /// Rows near a few centres, queries near rows: neighbours whose order int8 rounding could upset.
    static func clustered(rows: Int, dim: Int, seed: UInt64) -> (vectors: [[Float]], queries: [[Float]]) {
        var rng = SplitMix64(seed: seed)
        let centres = (0..<20).map { _ in gaussian(&rng, dim) }
        let vectors = (0..<rows).map { i in unit(zip(centres[i % 20], gaussian(&rng, dim)).map { $0 + 0.8 * $1 }) }
        let queries = (0..<20).map { i in unit(zip(vectors[i * 37 % rows], gaussian(&rng, dim)).map { $0 + 0.5 * $1 }) }
        return (vectors, queries)
    }

    @Test func int8ScanRecallAgainstFloatReference() throws {
        let dir = TempDirectory("vectors")
        let (vectors, queries) = Self.clustered(rows: 1500, dim: 384, seed: 42)
        try Self.writeIndex(dir.url("v.bin"), vectors, encoding: .int8)
        let index = try VectorIndex(path: dir.url("v.bin"))
        #expect(index.rows == 1500 && index.dimension == 384 && index.encoding == .int8)
        var found = 0, total = 0
        for q in queries {
            let exact = Set(Self.reference(vectors, q, 10))
            let got = index.nearest(to: q, limit: 10).map { Int($0.row) }
            #expect(got.count == 10)
            found += got.filter(exact.contains).count
            total += exact.count
        }
        let recall = Double(found) / Double(total)
        #expect(recall >= 0.95, "recall@10 = \(recall)")
    }

    @Test func scoresApproximateCosine() throws {
        let dir = TempDirectory("vectors")
        let (vectors, queries) = Self.clustered(rows: 200, dim: 384, seed: 3)
        try Self.writeIndex(dir.url("v.bin"), vectors, encoding: .int8)
        let index = try VectorIndex(path: dir.url("v.bin"))
        for hit in index.nearest(to: queries[0], limit: 5) {
            let exact = zip(vectors[Int(hit.row)], queries[0]).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            #expect(abs(hit.score - exact) < 0.01)
        }
    }

    /// Splitting the scan across threads returns exactly what one thread returns.
    @Test(arguments: [1, 2, 3, 7, 64])
    func slicesAgreeWithSingleScan(_ threads: Int) throws {
        let dir = TempDirectory("vectors")
        let (vectors, queries) = Self.clustered(rows: 1000, dim: 100, seed: 9)
        try Self.writeIndex(dir.url("v.bin"), vectors, encoding: .int8)
        let index = try VectorIndex(path: dir.url("v.bin"))
        for q in queries.prefix(5) {
            #expect(index.nearest(to: q, limit: 25, threads: threads) == index.nearest(to: q, limit: 25, threads: 1))
        }
    }

    @Test func f32ScanIsExact() throws {
        let dir = TempDirectory("vectors")
        let (vectors, queries) = Self.clustered(rows: 500, dim: 48, seed: 5)
        try Self.writeIndex(dir.url("v.bin"), vectors, encoding: .f32)
        let index = try VectorIndex(path: dir.url("v.bin"))
        #expect(index.encoding == .f32)
        for q in queries.prefix(5) {
            #expect(index.nearest(to: q, limit: 10, threads: 3).map { Int($0.row) } == Self.reference(vectors, q, 10))
        }
    }

    @Test func onlyPositiveScoresAndLimit() throws {
        let dir = TempDirectory("vectors")
        try Self.writeIndex(dir.url("v.bin"), [[1, 0, 0, 0, 0, 0, 0, 0, 0], [-1, 0, 0, 0, 0, 0, 0, 0, 0], [0.6, 0.8, 0, 0, 0, 0, 0, 0, 0]], encoding: .int8)
        let index = try VectorIndex(path: dir.url("v.bin"))
        let q: [Float] = [1, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(index.nearest(to: q, limit: 10).map(\.row) == [0, 2])
        #expect(index.nearest(to: q, limit: 1).map(\.row) == [0])
        #expect(index.nearest(to: q, limit: 0).isEmpty)
        #expect(index.nearest(to: [Float](repeating: 0, count: 9), limit: 5).isEmpty)
    }

    @Test func truncatedFileIsRefused() throws {
        let dir = TempDirectory("vectors")
        try Self.writeIndex(dir.url("v.bin"), [[1, 0, 0, 0]], encoding: .int8)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir.url("v.bin")))
        try dir.write("short.bin", data.dropLast(1))
        #expect(throws: FormatError.malformed(what: "vector file", reason: "file is \(data.count - 1) bytes, the header implies \(data.count)")) {
            _ = try VectorIndex(path: dir.url("short.bin"))
        }
        try dir.write("empty.bin", Data())
        #expect(throws: FormatError.malformed(what: "vector file", reason: "missing CSVECTOR header")) {
            _ = try VectorIndex(path: dir.url("empty.bin"))
        }
    }

    @Test func topKKeepsTheBestAndBreaksTiesByRow() {
        var top = TopK(capacity: 3)
        for (r, s) in [(5, 0.1), (1, 0.9), (2, 0.5), (9, 0.9), (3, 0.2), (0, 0.5)] as [(Int32, Float)] {
            top.offer(ScoredRow(row: r, score: s))
        }
        #expect(top.sorted() == [ScoredRow(row: 1, score: 0.9), ScoredRow(row: 9, score: 0.9), ScoredRow(row: 0, score: 0.5)])
    }
}
