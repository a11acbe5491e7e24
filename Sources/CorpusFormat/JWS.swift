import Foundation

/// Compact JWS (RFC 7515 §7.1) signed with EdDSA over Ed25519 (RFC 8037), the only algorithm
/// CorpusSync issues or accepts. The key id (`kid`) is the minisign key id in 16 upper-case hex
/// digits, so one minisign key pair from `corpusd keygen` serves for tokens too.
public enum JWS {
    /// The one `alg` value accepted; `none`, HMAC and every other algorithm are refused (RFC 8725 §3.1).
    public static let algorithm = "EdDSA"
    /// Tokens longer than this are refused before any decoding work.
    public static let maxLength = 8192

    /// The three decoded parts of a compact JWS; nothing here is verified yet.
    public struct Parts: Sendable {
        public let header: [String: JSONValue]
        public let headerBytes: [UInt8]
        public let payload: [UInt8]
        public let signature: [UInt8]
        /// `BASE64URL(header) . BASE64URL(payload)`: what the signature covers.
        public let signingInput: [UInt8]
    }

    /// Signs `payload` with a minisign secret key, returning `header.payload.signature`.
    public static func sign(payload: [UInt8], key: SecretKey, type: String = "JWT") throws -> String {
        let header = JSONValue.object(["alg": .string(algorithm), "typ": .string(type), "kid": .string(key.keyID.description)])
        let input = Base64URL.encode(CanonicalJSON.serialize(header)) + "." + Base64URL.encode(payload)
        let signature = try Ed25519.sign(Array(input.utf8), seed: key.seed)
        return input + "." + Base64URL.encode(signature)
    }

    /// Splits and decodes a compact JWS. Refuses anything but three base64url parts with a JSON
    /// object header; says nothing about the token's bytes in its errors.
    public static func parse(_ token: String) throws(EntitlementTokenError) -> Parts {
        guard token.utf8.count <= maxLength else { throw .malformed(reason: "longer than \(maxLength) bytes") }
        let pieces = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard pieces.count == 3 else { throw .malformed(reason: "expected three dot-separated parts, found \(pieces.count)") }
        guard let headerBytes = Base64URL.decode(pieces[0]), let payload = Base64URL.decode(pieces[1]),
              let signature = Base64URL.decode(pieces[2]) else {
            throw .malformed(reason: "a part is not unpadded base64url")
        }
        // RFC 7515 §4: header parameter names must be unique; a reader keeping the other `alg` or
        // `kid` of two would verify a different token than this one.
        if let refusal = CanonicalJSON.uniquenessRefusal(Data(headerBytes)) { throw .malformed(reason: "the header has a " + refusal) }
        guard let header = try? JSONDecoder().decode([String: JSONValue].self, from: Data(headerBytes)) else {
            throw .malformed(reason: "the header is not a JSON object")
        }
        let signingInput = Array(pieces[0]) + [UInt8(ascii: ".")] + Array(pieces[1])
        return Parts(header: header, headerBytes: headerBytes, payload: payload, signature: signature, signingInput: signingInput)
    }

    /// Checks the header and signature against one pinned key: `alg` must be `EdDSA`, `kid` must
    /// name the pinned key, no `crit` extensions, and the Ed25519 signature must verify.
    public static func verify(_ parts: Parts, key: PublicKey) throws(EntitlementTokenError) {
        guard case let .string(alg)? = parts.header["alg"] else { throw .malformed(reason: "the header has no alg") }
        guard alg == algorithm else { throw .algorithmNotAllowed(Self.printable(alg)) }
        // A `crit` header names extensions the verifier must understand; we understand none (RFC 7515 §4.1.11).
        guard parts.header["crit"] == nil else { throw .malformed(reason: "the header has crit extensions") }
        guard case let .string(kid)? = parts.header["kid"] else { throw .unknownKey(keyID: nil) }
        guard let keyID = KeyID(kid), keyID == key.keyID else { throw .unknownKey(keyID: Self.printable(kid)) }
        guard Ed25519.verify(signature: parts.signature, message: parts.signingInput, publicKey: key.bytes) else {
            throw .signatureInvalid
        }
    }

    /// Attacker-chosen header values may appear in messages, but short and printable only.
    static func printable(_ s: String) -> String {
        let clean = String(s.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7f }.prefix(32).map(Character.init))
        return clean.count < s.count ? clean + "…" : clean
    }
}

/// base64url without padding (RFC 7515 §2), the encoding of every JWS part.
///
/// Written out rather than built on Foundation's base64 with `replacingOccurrences`: every gated
/// request decodes a token, and the round trip through `NSString` cost more than the parse it
/// served. `Base64URLTests` checks both directions against Foundation's coder.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The 6-bit value of each base64url byte; 0xFF for every other byte (padding included).
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil for padding, `+`, `/`, whitespace or any other stray byte,
    /// and for a length of 1 mod 4, which no whole number of bytes encodes to. Bits left over
    /// in the last character are ignored, as Foundation's decoder ignores them.
    public static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        guard text.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in text {
            let value = values[Int(c)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return out
    }

    public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }
}
