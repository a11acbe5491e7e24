import CorpusFormat
import Foundation

/// A memory-mapped `.safetensors` file whose tensors are read in place, without copies.
///
/// Layout (https://github.com/huggingface/safetensors): an 8-byte little-endian header length N,
/// N bytes of JSON `{"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": …}`,
/// then the tensor bytes, offsets relative to the byte after the header.
///
/// Sendable: every stored property is immutable, and the mapping (`MappedFile`) is read-only.
public final class SafeTensorsFile: Sendable {
    public struct TensorInfo: Equatable, Sendable {
        public let dtype: String
        public let shape: [Int]
        /// Byte range relative to the start of the file.
        let range: Range<Int>
    }

    public let path: String
    public let tensors: [String: TensorInfo]
    private let file: MappedFile

    /// The reference implementation refuses headers over 100 MB; so do we.
    static let maxHeaderLength = 100 << 20
    static let dtypeSizes: [String: Int] = [
        "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1,
    ]

    /// Maps the file (`MappedFile`) and parses and bounds-checks its header.
    public init(path: String) throws {
        self.path = path
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch {
            throw SafeTensorsError.io(operation: error.operation, path: path, errno: error.errno)
        }
        guard file.size >= 8 else { throw SafeTensorsError.malformed(path: path, reason: "shorter than 8 bytes") }
        self.tensors = try Self.parseHeader(file.bytes, path: path)
        self.file = file
    }

    /// The F32 tensor `name` as a buffer into the mapping, valid while this object lives.
    public func floats(_ name: String) throws -> (values: UnsafeBufferPointer<Float>, shape: [Int]) {
        guard let info = tensors[name] else { throw EncoderError.missingTensor(name: name) }
        guard info.dtype == "F32" else { throw SafeTensorsError.unsupportedDType(name: name, dtype: info.dtype) }
        let start = file.bytes.baseAddress! + info.range.lowerBound
        guard Int(bitPattern: start) % MemoryLayout<Float>.alignment == 0 else {
            throw SafeTensorsError.malformed(path: path, reason: "tensor \(name) is not 4-byte aligned")
        }
        let values = UnsafeBufferPointer(start: start.assumingMemoryBound(to: Float.self),
                                         count: info.range.count / MemoryLayout<Float>.stride)
        return (values, info.shape)
    }

    /// The F16 or BF16 tensor `name` converted to f32 in a buffer the caller owns (and
    /// deallocates).
    public func convertedFloats(_ name: String) throws -> (values: UnsafeMutableBufferPointer<Float>, shape: [Int]) {
        guard let info = tensors[name] else { throw EncoderError.missingTensor(name: name) }
        guard info.dtype == "F16" || info.dtype == "BF16" else { throw SafeTensorsError.unsupportedDType(name: name, dtype: info.dtype) }
        let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: info.range.count / 2)
        try copyFloats(name, into: out.baseAddress!)
        return (out, info.shape)
    }

    /// Writes the F32, F16 or BF16 tensor `name` as f32 to `out`, which has room for its values,
    /// and lets the tensor's mapped pages go. Values are read unaligned: the format does not align
    /// 16-bit tensors to 4 bytes.
    public func copyFloats(_ name: String, into out: UnsafeMutablePointer<Float>) throws {
        guard let info = tensors[name] else { throw EncoderError.missingTensor(name: name) }
        let base = UnsafeRawPointer(file.bytes.baseAddress! + info.range.lowerBound)
        switch info.dtype {
        case "F32":
            for i in 0..<(info.range.count / 4) {
                out[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            }
        case "F16":
            for i in 0..<(info.range.count / 2) {
                out[i] = HalfFloat.f16(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
            }
        case "BF16":
            for i in 0..<(info.range.count / 2) {
                out[i] = HalfFloat.bf16(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
            }
        default:
            throw SafeTensorsError.unsupportedDType(name: name, dtype: info.dtype)
        }
        // Copied out for good: the mapped pages need not stay resident beside the copy.
        file.willNotNeed(info.range)
    }

    static func parseHeader(_ bytes: UnsafeRawBufferPointer, path: String) throws -> [String: TensorInfo] {
        func malformed(_ reason: String) -> SafeTensorsError { .malformed(path: path, reason: reason) }
        var headerLength: UInt64 = 0
        for i in (0..<8).reversed() { headerLength = headerLength << 8 | UInt64(bytes[i]) }
        guard headerLength <= UInt64(maxHeaderLength), Int(headerLength) <= bytes.count - 8 else {
            throw malformed("header length \(headerLength) exceeds the file or the 100 MB limit")
        }
        let dataStart = 8 + Int(headerLength)
        let dataLength = bytes.count - dataStart
        let header = Data(bytes[8..<dataStart])
        guard let object = (try? JSONSerialization.jsonObject(with: header)) as? [String: Any] else {
            throw malformed("header is not a JSON object")
        }
        var tensors: [String: TensorInfo] = [:]
        for (name, value) in object where name != "__metadata__" {
            guard let entry = value as? [String: Any],
                  let dtype = entry["dtype"] as? String,
                  let shape = entry["shape"] as? [Int],
                  let offsets = entry["data_offsets"] as? [Int], offsets.count == 2
            else { throw malformed("tensor \(name) lacks dtype, shape or data_offsets") }
            guard let size = dtypeSizes[dtype] else { throw SafeTensorsError.unsupportedDType(name: name, dtype: dtype) }
            guard shape.allSatisfy({ $0 >= 0 }) else { throw malformed("tensor \(name) has a negative dimension") }
            let (begin, end) = (offsets[0], offsets[1])
            guard 0 <= begin, begin <= end, end <= dataLength else {
                throw malformed("tensor \(name) data_offsets \(offsets) lie outside the \(dataLength) data bytes")
            }
            let (count, overflow) = shape.reduce((size, false)) { acc, dim in
                let (product, o) = acc.0.multipliedReportingOverflow(by: dim)
                return (product, acc.1 || o)
            }
            guard !overflow, count == end - begin else {
                throw malformed("tensor \(name) has \(end - begin) bytes, its shape \(shape) of \(dtype) needs \(count)")
            }
            tensors[name] = TensorInfo(dtype: dtype, shape: shape, range: (dataStart + begin)..<(dataStart + end))
        }
        return tensors
    }
}
