/// Reads one JSON string token (RFC 8259 §7) and unescapes it: the one string reader of both
/// byte-level JSON readers here, the duplicate-name scanner (`JSONDuplicateKeys`) and the reader of
/// `JSONEncoder`'s output in `CanonicalJSON.encode`, so a name and a value unescape alike.
enum JSONStringLiteral {
    /// The string whose opening quote is at `i`, with `i` moved past its closing quote; nil (and `i`
    /// anywhere) when the bytes there are not a complete, valid string: a missing quote, an unknown
    /// escape, a bad `\u` escape or an unpaired surrogate.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int) -> String? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"): guard unescape(bytes, at: &i, into: &out) else { return nil }
            default: out.append(b)
            }
        }
        return nil
    }

    private static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int, into out: inout [UInt8]) -> Bool {
        guard i < bytes.count else { return false }
        let e = bytes[i]
        i += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            guard var code = hex4(bytes, at: &i) else { return false }
            if (0xD800..<0xDC00).contains(code) {
                // A high surrogate must be followed by an escaped low one.
                guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return false }
                i += 2
                guard let low = hex4(bytes, at: &i), (0xDC00..<0xE000).contains(low) else { return false }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { return false }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            return false
        }
        return true
    }

    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int) -> UInt32? {
        guard i + 4 <= bytes.count else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = Hex.digitValue(bytes[i]) else { return nil }
            i += 1
            v = v << 4 | UInt32(d)
        }
        return v
    }
}
