import Foundation

/// Hexadecimal, the package's one copy of it: lower case for digests and key ids in every format,
/// upper case where a standard asks for it (percent-encoding, RFC 3986 §2.1; minisign key ids).
public enum Hex {
    /// The two hex digits of each byte of `bytes`.
    @inlinable
    public static func encode<S: Sequence>(_ bytes: S, uppercase: Bool = false) -> String where S.Element == UInt8 {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(contiguous: UnsafeRawBufferPointer($0), uppercase: uppercase) }) {
            return text
        }
        return Array(bytes).withUnsafeBytes { encode(contiguous: $0, uppercase: uppercase) }
    }

    /// `encode` written straight into the string's storage: a digest is encoded for every file
    /// hashed and every reference compared.
    @usableFromInline
    static func encode(contiguous bytes: UnsafeRawBufferPointer, uppercase: Bool) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = digit(b >> 4, uppercase: uppercase)
                out[i + 1] = digit(b & 0x0f, uppercase: uppercase)
                i += 2
            }
            return i
        }
    }

    /// Appends the two hex digits of `byte` to `out`, for writers that build their text byte by
    /// byte: the access log's and SigV4's `%XX`, canonical JSON's `\u00XX`.
    @inlinable
    public static func append(_ byte: UInt8, uppercase: Bool = false, to out: inout [UInt8]) {
        out.append(digit(byte >> 4, uppercase: uppercase))
        out.append(digit(byte & 0x0f, uppercase: uppercase))
    }

    /// The hex digit for `nibble` (0 to 15). Arithmetic rather than a table: no lazily initialised
    /// global to reach and no bounds check on the serving threads that call it.
    @inlinable
    public static func digit(_ nibble: UInt8, uppercase: Bool = false) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) &+ (nibble &- 10)
    }

    /// Decodes lower- or upper-case hex; nil for odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = digitValue(chars[i]), let lo = digitValue(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// The value of one hex digit (either case), nil for any other byte: the server's percent
    /// decoding and the JSON scanner's `\uXXXX` use it too.
    @inlinable
    public static func digitValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// True for `0`–`9` and `a`–`f`: the digits `encode` writes by default, and all a digest's
    /// text may hold (`SHA256Digest`, content-addressed names).
    @inlinable
    public static func isLowerDigit(_ c: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(c)
    }
}
