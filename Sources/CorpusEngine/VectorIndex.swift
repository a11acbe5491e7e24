import Foundation
import CorpusFormat
import Dispatch
import Synchronization

/// The vector sidecar (`vectors.bin`) of one corpus version, memory-mapped and scanned in place.
///
/// The matrix is never copied into arrays: the scan reads the mapping directly, so opening is
/// O(1) and the pages are shared with the page cache (and with other processes searching the
/// same corpus). The mapping keeps the file reachable after `current` moves on or the version
/// folder is unlinked, so a search in flight is never disturbed by an install.
///
/// Scoring follows docs/format.md: int8 rows are dotted with the query quantized to int8 the
/// same way (symmetric, per vector), then multiplied by both scales; f32 rows are dotted as is.
/// Only rows with a positive score are returned: with unit vectors that is a positive cosine.
public final class VectorIndex: Sendable {
    public let header: VectorFileHeader
    private let file: MappedFile

    /// Rows below which one thread scans everything: splitting costs more than it saves.
    static let parallelThreshold = 16_384

    /// Maps `path` and validates its header against the file's size (`VectorFileHeader.decode`).
    public init(path: String) throws {
        let file: MappedFile
        do {
            // The scan reads every row front to back: ask the kernel to read ahead.
            file = try MappedFile(path: path, advice: .willNeed)
        } catch {
            throw EngineError(mapping: error)
        }
        header = try VectorFileHeader.decode(file.bytes, fileSize: file.size)
        self.file = file
    }

    public var rows: Int { header.rows }
    public var dimension: Int { header.dimension }
    public var encoding: VectorFileHeader.Encoding { header.encoding }

    /// The `limit` rows most similar to `query` (unit length, `dimension` values), best first.
    /// - Parameter threads: how many slices to scan concurrently; nil picks by size and core count.
    public func nearest(to query: [Float], limit: Int, threads: Int? = nil) -> [ScoredRow] {
        precondition(query.count == dimension, "query has \(query.count) values, the index \(dimension)")
        guard limit > 0, rows > 0 else { return [] }
        let slices: Int
        if let threads {
            slices = max(1, min(threads, rows))
        } else if rows < Self.parallelThreshold {
            slices = 1
        } else {
            // A few slices per core so a core slowed by other work does not hold up the rest.
            slices = min(rows / 4096, ProcessInfo.processInfo.activeProcessorCount * 4)
        }
        switch encoding {
        case .int8:
            let (q, qScale) = Int8Quantizer.quantize(query)
            guard qScale > 0 else { return [] }
            let kernel = Int8Kernel(query: q, scale: qScale)
            return scan(slices: slices, limit: limit) { range, top in scanInt8(range, kernel, &top) }
        case .f32:
            return scan(slices: slices, limit: limit) { range, top in scanF32(range, query, &top) }
        }
    }

    private func scan(slices: Int, limit: Int, _ body: @Sendable (Range<Int>, inout TopK) -> Void) -> [ScoredRow] {
        if slices == 1 {
            var top = TopK(capacity: limit)
            body(0..<rows, &top)
            return top.sorted()
        }
        let partials = Mutex<[TopK]>([])
        let per = (rows + slices - 1) / slices
        DispatchQueue.concurrentPerform(iterations: slices) { i in
            let range = min(rows, i * per)..<min(rows, (i + 1) * per)
            guard !range.isEmpty else { return }
            var top = TopK(capacity: limit)
            body(range, &top)
            partials.withLock { $0.append(top) }
        }
        var merged = TopK(capacity: limit)
        partials.withLock { for p in $0 { merged.merge(p) } }
        return merged.sorted()
    }

    /// The query as 16-bit lanes, eight at a time, ready for multiply-and-add-pairs.
    struct Int8Kernel: Sendable {
        var lanes: [SIMD8<Int16>] = []
        var tail: [Int32] = []
        let scale: Float

        init(query: [Int8], scale: Float) {
            self.scale = scale
            let whole = query.count / 8
            for j in 0..<whole {
                var v = SIMD8<Int16>()
                for l in 0..<8 { v[l] = Int16(query[j * 8 + l]) }
                lanes.append(v)
            }
            tail = query[(whole * 8)...].map { Int32($0) }
        }
    }

    /// The first byte of the mapping; the header check guarantees the file is not empty.
    private var base: UnsafeRawPointer { file.bytes.baseAddress! }

    private func scanInt8(_ range: Range<Int>, _ kernel: Int8Kernel, _ top: inout TopK) {
        let dim = dimension
        let matrix = base + header.matrixOffset
        let scales = base + header.scalesOffset
        let whole = kernel.lanes.count
        let tailStart = whole * 8
        kernel.lanes.withUnsafeBufferPointer { lanes in
            kernel.tail.withUnsafeBufferPointer { tail in
                let q = lanes.baseAddress!
                for r in range {
                    let row = matrix + r * dim
                    // int8 × int8 widened to 32 bits, then even + odd lanes added: the shape LLVM
                    // lowers to one multiply-add-pairs instruction (pmaddwd) per eight values.
                    var acc = SIMD4<Int32>()
                    for j in 0..<whole {
                        let a = SIMD8<Int16>(truncatingIfNeeded: row.loadUnaligned(fromByteOffset: j &* 8, as: SIMD8<Int8>.self))
                        let p = SIMD8<Int32>(truncatingIfNeeded: a) &* SIMD8<Int32>(truncatingIfNeeded: q[j])
                        acc &+= p.evenHalf &+ p.oddHalf
                    }
                    var dot = acc.wrappedSum()
                    for (i, t) in tail.enumerated() {
                        dot &+= Int32(row.load(fromByteOffset: tailStart + i, as: Int8.self)) &* t
                    }
                    guard dot > 0 else { continue }
                    let rowScale = Float(bitPattern: UInt32(littleEndian: scales.loadUnaligned(fromByteOffset: r &* 4, as: UInt32.self)))
                    let score = Float(dot) * rowScale * kernel.scale
                    if score > top.threshold { top.offer(ScoredRow(row: Int32(r), score: score)) }
                }
            }
        }
    }

    private func scanF32(_ range: Range<Int>, _ query: [Float], _ top: inout TopK) {
        let dim = dimension
        let matrix = base + header.matrixOffset
        query.withUnsafeBufferPointer { q in
            for r in range {
                let row = matrix + r * dim * 4
                var dot: Float = 0
                for i in 0..<dim {
                    dot += Float(bitPattern: UInt32(littleEndian: row.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))) * q[i]
                }
                guard dot > 0 else { continue }
                if dot > top.threshold { top.offer(ScoredRow(row: Int32(r), score: dot)) }
            }
        }
    }
}
