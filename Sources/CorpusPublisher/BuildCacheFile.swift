import Foundation
import CorpusFormat

/// The layout of `.build-cache.json` format 2: one JSON object, which `JSONDecoder` reads whole,
/// written one key to a line so that its lines can also be read apart:
///
///     {"format":2,"corpora":{
///     "<key>":<value>,
///     …
///     "<key>":<value>
///     }}
///
/// Values are compact JSON, so no line holds a newline of its own. A file in this layout is read
/// line by line, its values decoded on every core; any other file (format 1, pretty-printed, or a
/// format-2 file someone reflowed) is decoded whole, as before.
enum BuildCacheFile {
    static let head = Array(#"{"format":2,"corpora":{"#.utf8)
    static let tail = Array("}}".utf8)

    /// A value as read, with its bytes in the file when it was read from a line (nil from a whole decode).
    struct Line<Value: Sendable>: Sendable {
        var value: Value
        var bytes: ArraySlice<UInt8>?
    }

    /// Every key's value; nil when the file is not a cache of format 1 or 2, or a value does not decode.
    static func read<Value: Codable & Sendable>(_ data: Data, as: Value.Type) -> [String: Line<Value>]? {
        if let lines = readLines(data, as: Value.self) { return lines }
        guard let whole = try? JSONDecoder().decode(Whole<Value>.self, from: data), whole.format == 1 || whole.format == 2 else { return nil }
        return whole.corpora.mapValues { Line(value: $0, bytes: nil) }
    }

    /// The cache as one object: how format 1 was written, and how any format is read when its lines cannot be.
    struct Whole<Value: Decodable>: Decodable {
        var format: Int
        var corpora: [String: Value]
    }

    /// The file of `values`, keys in order; `unchanged` gives the bytes to write again for a value
    /// read from a line and not changed since (nil: encode it).
    static func write<Value: Encodable>(_ values: [String: Value], unchanged: (String, Value) -> ArraySlice<UInt8>?) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = Data()
        out.append(contentsOf: head)
        out.append(0x0A)
        let sorted = values.sorted { $0.key < $1.key }
        for (i, (key, value)) in sorted.enumerated() {
            if isPlain(key) {
                out.append(0x22)
                out.append(contentsOf: key.utf8)
                out.append(0x22)
            } else {
                out.append(try encoder.encode(key))
            }
            out.append(0x3A)
            if let kept = unchanged(key, value) { out.append(contentsOf: kept) } else { out.append(try encoder.encode(value)) }
            if i < sorted.count - 1 { out.append(0x2C) }
            out.append(0x0A)
        }
        out.append(contentsOf: tail)
        out.append(0x0A)
        return out
    }

    /// A key written between quotes as it is: no quote, backslash or control character to escape.
    static func isPlain(_ key: String) -> Bool {
        key.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
    }

    /// The values of a file in the line layout, decoded on every core; nil when the file is not in
    /// that layout (a key needs unescaping, a line is not `"key":value`), repeats a key, or a value
    /// does not decode.
    static func readLines<Value: Decodable & Sendable>(_ data: Data, as: Value.Type) -> [String: Line<Value>]? {
        let bytes = [UInt8](data)
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.first.map(Array.init) == head else { return nil }
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count >= 2, lines.last.map(Array.init) == tail else { return nil }
        let body = lines[1 ..< lines.count - 1]
        var keys: [String] = []
        var values: [ArraySlice<UInt8>] = []
        keys.reserveCapacity(body.count)
        values.reserveCapacity(body.count)
        for (n, line) in body.enumerated() {
            var line = line
            if n < body.count - 1 {
                guard line.last == 0x2C else { return nil }
                line.removeLast()
            }
            guard line.first == 0x22, let close = line.dropFirst().firstIndex(of: 0x22) else { return nil }
            let key = line[line.startIndex + 1 ..< close]
            guard !key.contains(0x5C), close + 1 < line.endIndex, line[close + 1] == 0x3A else { return nil }
            keys.append(String(decoding: key, as: UTF8.self))
            values.append(line[(close + 2)...])
        }
        let decoded = Workers.Slots<Value>(count: values.count)
        let lanes = max(1, min(Workers.all, values.count / 256))
        let slices = values
        Workers.forEach(lanes, width: lanes) { lane in
            let decoder = JSONDecoder()
            for i in stride(from: lane, to: slices.count, by: lanes) {
                guard let value = try? slices[i].withUnsafeBytes({ try decoder.decode(Value.self, from: Data($0)) }) else { continue }
                decoded.set(i, value)
            }
        }
        var out: [String: Line<Value>] = [:]
        out.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() {
            guard let value = decoded.take(i), out.updateValue(Line(value: value, bytes: values[i]), forKey: key) == nil else { return nil }
        }
        return out
    }
}
