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
public enum Base64URL {
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; nil for padding, `+`, `/`, whitespace or any other stray byte.
    public static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        var s = [UInt8]()
        s.reserveCapacity(text.count + 3)
        for c in text {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                s.append(c)
            case UInt8(ascii: "-"): s.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): s.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        // A length of 1 mod 4 can never come from encoding whole bytes.
        guard s.count % 4 != 1 else { return nil }
        while s.count % 4 != 0 { s.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(s)) else { return nil }
        return [UInt8](data)
    }

    public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }
}
