import Foundation

/// The vector sidecar (`vectors.bin`): a 64-byte header, then a row-aligned matrix, then
/// (for int8) one little-endian f32 scale per row. Row r belongs to the passage whose
/// `passages.id` is r. Offsets are multiples of 64 so the file can be memory-mapped and
/// scanned with aligned SIMD loads.
///
/// Header (all little-endian): magic `CSVECTOR` (8) · format version u32 = 1 · encoding u32
/// (1 = int8, 2 = f32) · dimension u32 · reserved u32 = 0 · rows u64 · matrix offset u64 ·
/// scales offset u64 (0 for f32) · 16 zero bytes.
public struct VectorFileHeader: Hashable, Sendable {
    public enum Encoding: UInt32, Sendable {
        case int8 = 1
        case f32 = 2

        public var name: String { self == .int8 ? "int8" : "f32" }
        public var bytesPerValue: Int { self == .int8 ? 1 : 4 }
    }

    public static let size = 64
    public static let magic = Array("CSVECTOR".utf8)

    public var encoding: Encoding
    public var dimension: Int
    public var rows: Int

    public init(encoding: Encoding, dimension: Int, rows: Int) {
        self.encoding = encoding
        self.dimension = dimension
        self.rows = rows
    }

    public var rowBytes: Int { dimension * encoding.bytesPerValue }
    public var matrixOffset: Int { Self.size }
    public var scalesOffset: Int { encoding == .int8 ? Self.align(matrixOffset + rows * rowBytes) : 0 }
    public var fileSize: Int { encoding == .int8 ? scalesOffset + rows * 4 : matrixOffset + rows * rowBytes }

    static func align(_ n: Int) -> Int { (n + 63) & ~63 }

    public func encoded() -> [UInt8] {
        var out = Self.magic
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        u32(1); u32(encoding.rawValue); u32(UInt32(dimension)); u32(0)
        u64(UInt64(rows)); u64(UInt64(matrixOffset)); u64(UInt64(scalesOffset))
        out += [UInt8](repeating: 0, count: Self.size - out.count)
        return out
    }

    /// Parses and bounds-checks a header against the file's actual size.
    public static func decode(_ bytes: UnsafeRawBufferPointer, fileSize: Int) throws -> VectorFileHeader {
        func bad(_ r: String) -> FormatError { .malformed(what: "vector file", reason: r) }
        guard bytes.count >= size, Array(bytes[0..<8]) == magic else { throw bad("missing CSVECTOR header") }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        guard u32(8) == 1 else { throw FormatError.unsupported(what: "vector file", reason: "format version \(u32(8))") }
        guard let enc = Encoding(rawValue: u32(12)) else { throw bad("unknown encoding \(u32(12))") }
        let dim = Int(u32(16))
        guard (1...4096).contains(dim) else { throw bad("dimension \(dim) out of range") }
        let rows = u64(24)
        guard rows < 1 << 32 else { throw bad("row count out of range") }
        let h = VectorFileHeader(encoding: enc, dimension: dim, rows: Int(rows))
        guard u64(32) == UInt64(h.matrixOffset), u64(40) == UInt64(h.scalesOffset) else { throw bad("offsets do not match the layout") }
        guard h.fileSize == fileSize else { throw bad("file is \(fileSize) bytes, the header implies \(h.fileSize)") }
        return h
    }
}

/// Symmetric per-row int8 quantization: q = round(v · 127 / max|v|), scale = max|v| / 127,
/// so v ≈ q · scale. Dot products are computed on the int8 values and multiplied by both scales.
public enum Int8Quantizer {
    public static func quantize(_ v: [Float]) -> (values: [Int8], scale: Float) {
        v.withUnsafeBufferPointer(quantize)
    }

    /// Rounds half away from zero as `rounded()` does, without calling libm: truncate, then step
    /// away from zero when the dropped fraction (exact: the truncation and the value share their
    /// exponent, or the truncation is 0) is at least one half. Plain arithmetic the compiler can
    /// vectorize; `rounded()` was a libm call per value.
    public static func quantize(_ v: UnsafeBufferPointer<Float>) -> (values: [Int8], scale: Float) {
        var maxAbs: Float = 0
        for x in v {
            let a = abs(x)
            maxAbs = a > maxAbs ? a : maxAbs
        }
        guard maxAbs > 0 else { return ([Int8](repeating: 0, count: v.count), 0) }
        let k = 127 / maxAbs
        let values = [Int8](unsafeUninitializedCapacity: v.count) { out, count in
            for i in 0..<v.count {
                // |y| <= 127 (and a rounding error), far inside Int32.
                let y = v[i] * k
                let t = Int32(y)
                let f = y - Float(t)
                out[i] = Int8(clamping: t + (f >= 0.5 ? 1 : 0) - (f <= -0.5 ? 1 : 0))
            }
            count = v.count
        }
        return (values, maxAbs / 127)
    }
}

/// Writes a vector file incrementally: header, rows one by one, then the scales.
public final class VectorFileWriter {
    private let handle: FileHandle
    private var header: VectorFileHeader
    /// The row count promised up front, or nil when the rows are counted as they come and the
    /// header is written again by `finish`.
    private let expectedRows: Int?
    private var scales: [Float] = []
    private var written = 0
    private var buffer: [UInt8] = []

    public init(path: String, encoding: VectorFileHeader.Encoding, dimension: Int, rows: Int?) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw FormatError.io(operation: "create", path: path, errno: errno)
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        expectedRows = rows
        header = VectorFileHeader(encoding: encoding, dimension: dimension, rows: rows ?? 0)
        buffer = header.encoded()
    }

    /// Appends one L2-normalized vector.
    public func append(_ v: [Float]) throws {
        switch header.encoding {
        case .int8:
            let (q, s) = Int8Quantizer.quantize(v)
            try append(quantized: q, scale: s)
        case .f32:
            precondition(v.count == header.dimension && written < expectedRows ?? .max)
            for x in v { withUnsafeBytes(of: x.bitPattern.littleEndian) { buffer += $0 } }
            written += 1
            if buffer.count >= 1 << 20 { try flush() }
        }
    }

    /// Appends one row of an int8 file already quantized by `Int8Quantizer` (which callers
    /// can run on many cores).
    public func append(quantized q: [Int8], scale: Float) throws {
        precondition(header.encoding == .int8 && q.count == header.dimension && written < expectedRows ?? .max)
        q.withUnsafeBytes { buffer += $0 }
        scales.append(scale)
        written += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    public func finish() throws {
        precondition(written == expectedRows ?? written, "wrote \(written) of \(header.rows) rows")
        header.rows = written
        if header.encoding == .int8 {
            let matrixEnd = header.matrixOffset + header.rows * header.rowBytes
            buffer += [UInt8](repeating: 0, count: header.scalesOffset - matrixEnd)
            for s in scales { withUnsafeBytes(of: s.bitPattern.littleEndian) { buffer += $0 } }
        }
        try flush()
        if expectedRows == nil {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: header.encoded())
        }
        try handle.close()
    }

    private func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable) extension VectorFileWriter: Sendable {}
