import Foundation

/// A JSON value restricted to what signed CorpusSync documents may hold:
/// no floating-point numbers, so every value has exactly one encoding.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let i = try? c.decode(Int64.self) { self = .integer(i); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([JSONValue].self) { self = .array(a); return }
        if let o = try? c.decode([String: JSONValue].self) { self = .object(o); return }
        throw DecodingError.dataCorruptedError(in: c, debugDescription: "only integers are allowed as numbers in signed documents")
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .bool(b): try c.encode(b)
        case let .integer(i): try c.encode(i)
        case let .string(s): try c.encode(s)
        case let .array(a): try c.encode(a)
        case let .object(o): try c.encode(o)
        }
    }
}

/// The one byte encoding used for everything that is signed or hashed.
///
/// Objects have their keys sorted by UTF-8 bytes, there is no whitespace, numbers are
/// integers in plain decimal, strings are UTF-8 with only `"`, `\` and control
/// characters escaped (`\b \f \n \r \t`, else `\u00XX` in lower case). This is the
/// float-free subset of RFC 8785 (JCS), so decoding and re-encoding gives the same bytes.
public enum CanonicalJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let plain = try JSONEncoder().encode(value)
        // JSONEncoder's own output, read back by a parser that knows only what it writes: the
        // generic `JSONValue` decoding (one failed typed decode after another for every value)
        // was half of a republish's time on a 6.9 MB flat catalog (issue 31). Same values, so
        // the same bytes (`CanonicalJSONTests`).
        let tree = try plain.withUnsafeBytes { raw in
            var parser = EncoderOutputParser(bytes: raw.bindMemory(to: UInt8.self))
            return try parser.document()
        }
        return Data(serialize(tree))
    }

    /// Reads the JSON `JSONEncoder` writes into a `JSONValue`: objects, arrays, strings with the
    /// escapes it uses (and any other RFC 8259 escape), integers, booleans, null. A number with a
    /// fraction or exponent is refused as the generic decoding refused it: signed documents hold
    /// integers only.
    private struct EncoderOutputParser {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        struct Refused: Error, CustomStringConvertible {
            let description: String
        }

        mutating func document() throws -> JSONValue {
            let v = try value()
            skipSpace()
            guard at == bytes.count else { throw Refused(description: "trailing bytes in encoder output") }
            return v
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
        }

        mutating func expect(_ literal: String) throws {
            for b in literal.utf8 {
                guard at < bytes.count, bytes[at] == b else { throw Refused(description: "unexpected byte in encoder output") }
                at += 1
            }
        }

        mutating func value() throws -> JSONValue {
            skipSpace()
            guard at < bytes.count else { throw Refused(description: "truncated encoder output") }
            switch bytes[at] {
            case UInt8(ascii: "{"):
                at += 1
                var members: [String: JSONValue] = [:]
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    members[key] = try value()
                    skipSpace()
                    guard at < bytes.count else { throw Refused(description: "truncated object") }
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    try expect("}")
                    return .object(members)
                }
            case UInt8(ascii: "["):
                at += 1
                var items: [JSONValue] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                while true {
                    items.append(try value())
                    skipSpace()
                    guard at < bytes.count else { throw Refused(description: "truncated array") }
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    try expect("]")
                    return .array(items)
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            default: return .integer(try integer())
            }
        }

        mutating func integer() throws -> Int64 {
            let start = at
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            let fraction = at < bytes.count && [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at])
            guard !fraction, let n = Int64(text) else {
                throw Refused(description: "only integers are allowed as numbers in signed documents")
            }
            return n
        }

        mutating func string() throws -> String {
            guard let s = JSONStringLiteral.read(bytes, at: &at) else { throw Refused(description: "bad string in encoder output") }
            return s
        }
    }

    /// Decodes a signed or hashed document; an object with a member name twice is refused, since
    /// which of the two a reader sees is up to the reader (see `JSONDuplicateKeys`).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, what: String) throws -> T {
        if let refusal = uniquenessRefusal(data) { throw FormatError.malformed(what: what, reason: refusal) }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw FormatError.malformed(what: what, reason: Self.reason(error))
        }
    }

    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var out = [UInt8]()
        write(value, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case let .bool(b): out += Array((b ? "true" : "false").utf8)
        case let .integer(i): out += Array(String(i).utf8)
        case let .string(s): writeString(s, into: &out)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (n, key) in keys.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(members[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0c: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0a: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0d: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                Hex.append(byte, to: &out)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A decoding error as one line naming the field (`corpora.0.bundle.sha256`), without the
    /// decoder's debug noise.
    /// - Parameter detail: for a value that does not decode, say why in the words of its type's
    ///   decoder (the format's own types give precise reasons, such as `SHA256Digest`'s) rather
    ///   than just "invalid value"; Foundation's words for its own types are not for users.
    public static func reason(_ error: Error, detail: Bool = true) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, ctx): return "missing field \(path(ctx.codingPath + [key]))"
        case let DecodingError.typeMismatch(_, ctx): return "wrong type at \(path(ctx.codingPath))"
        case let DecodingError.valueNotFound(_, ctx): return "missing value at \(path(ctx.codingPath))"
        case let DecodingError.dataCorrupted(ctx):
            guard !ctx.codingPath.isEmpty else { return "not valid JSON" }
            return "\(detail ? ctx.debugDescription : "invalid value") at \(path(ctx.codingPath))"
        case let e as FormatError: return e.description
        default: return "not valid JSON"
        }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
