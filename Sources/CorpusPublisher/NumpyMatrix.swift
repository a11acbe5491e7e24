import Foundation

/// A two-dimensional float32 array in NumPy's `.npy` format (the reader app's `embeddings.npy`),
/// read from bytes, with every property the format lets a writer vary checked.
///
/// Format (numpy.lib.format, versions 1.0 to 3.0): the magic `\x93NUMPY`, a major and minor
/// version byte, the header length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then the
/// header: a Python dict literal `{'descr': '<f4', 'fortran_order': False, 'shape': (N, D), }`
/// padded with spaces and a newline; the data follows, N·D values in C order. Only little-endian
/// float32 in C order is accepted; anything else is refused with what it is.
struct NumpyMatrix {
    let rows: Int
    let columns: Int
    let values: [Float]

    enum Failure: Error, Equatable, CustomStringConvertible {
        case notNumpy
        case header(String)
        case dtype(String)
        case fortranOrder
        case shape(String)
        case size(data: Int, expected: Int)

        var description: String {
            switch self {
            case .notNumpy: return "is not a NumPy .npy file (no \\x93NUMPY magic)"
            case let .header(reason): return "has a header that cannot be read (\(reason))"
            case let .dtype(d): return "holds \(d.debugDescription) values; it must be little-endian float32 ('<f4')"
            case .fortranOrder: return "is in Fortran (column-major) order; it must be in C order"
            case let .shape(s): return "has shape \(s); it must be (chunks, dimension)"
            case let .size(data, expected): return "holds \(data) bytes of values, its header promises \(expected)"
            }
        }
    }

    static let magic: [UInt8] = [0x93] + Array("NUMPY".utf8)

    init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 10, Array(bytes[0..<6]) == Self.magic else { throw .notNumpy }
        let major = bytes[6]
        let lengthBytes = major == 1 ? 2 : 4
        guard (1...3).contains(major), bytes.count >= 8 + lengthBytes else { throw .header("version \(major).\(bytes[7])") }
        var headerLength = 0
        for i in 0..<lengthBytes { headerLength |= Int(bytes[8 + i]) << (8 * i) }
        let start = 8 + lengthBytes
        guard headerLength <= 1 << 20, start + headerLength <= bytes.count else { throw .header("its length runs past the file") }
        guard let header = String(bytes: bytes[start..<(start + headerLength)], encoding: major == 3 ? .utf8 : .isoLatin1) else {
            throw .header("not text")
        }
        let fields = try Self.fields(header)
        guard let descr = fields["descr"], let order = fields["fortran_order"], let shape = fields["shape"] else {
            throw .header("it needs descr, fortran_order and shape")
        }
        guard descr == "'<f4'" else { throw .dtype(descr.trimmingCharacters(in: CharacterSet(charactersIn: "'\""))) }
        guard order == "False" else { throw order == "True" ? .fortranOrder : .header("fortran_order is \(order)") }
        let dims = try Self.shape(shape)
        guard dims.count == 2 else { throw .shape(shape) }
        let (rows, columns) = (dims[0], dims[1])
        let (count, overflow) = rows.multipliedReportingOverflow(by: columns)
        guard !overflow, count <= Int.max / 4 else { throw .shape(shape) }
        let data = bytes.count - start - headerLength
        guard data == count * 4 else { throw .size(data: data, expected: count * 4) }
        self.rows = rows
        self.columns = columns
        var values = [Float](repeating: 0, count: count)
        let offset = start + headerLength
        values.withUnsafeMutableBytes { out in
            bytes.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count * 4)])) }
        }
        #if _endian(big)
        values = values.map { Float(bitPattern: UInt32(littleEndian: $0.bitPattern)) }
        #endif
        self.values = values
    }

    /// The dict literal's entries, values as written (`'<f4'`, `False`, `(3, 768)`).
    static func fields(_ header: String) throws(Failure) -> [String: String] {
        var body = header.trimmingCharacters(in: .whitespacesAndNewlines)
        guard body.hasPrefix("{"), body.hasSuffix("}") else { throw .header("not a dict") }
        body = String(body.dropFirst().dropLast())
        var out: [String: String] = [:]
        var rest = Substring(body)
        while true {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard !rest.isEmpty else { break }
            guard let quote = rest.first, quote == "'" || quote == "\"", let close = rest.dropFirst().firstIndex(of: quote) else {
                throw .header("a key is not quoted")
            }
            let key = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
            guard rest.first == ":" else { throw .header("no colon after \(key)") }
            rest = rest.dropFirst().drop { $0 == " " }
            // A value runs to the comma that ends it; a tuple's own commas are inside parentheses.
            var depth = 0, end = rest.startIndex
            while end < rest.endIndex {
                let ch = rest[end]
                if ch == "(" { depth += 1 } else if ch == ")" { depth -= 1 } else if ch == ",", depth == 0 { break }
                end = rest.index(after: end)
            }
            guard out.updateValue(rest[..<end].trimmingCharacters(in: .whitespaces), forKey: key) == nil else { throw .header("\(key) twice") }
            rest = rest[end...]
        }
        return out
    }

    /// `(3, 768)` → [3, 768]; `(7680,)` → [7680].
    static func shape(_ text: String) throws(Failure) -> [Int] {
        guard text.hasPrefix("("), text.hasSuffix(")") else { throw .shape(text) }
        let parts = text.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var dims: [Int] = []
        for p in parts {
            guard let n = Int(p), n >= 0 else { throw .shape(text) }
            dims.append(n)
        }
        return dims
    }
}
