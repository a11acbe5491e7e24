import Foundation
import CorpusFormat

/// Entitlement tokens: compact JWS parsing (JOSE header), claims decoding and verification
/// against the pinned key (`EntitlementVerifier`).
///
/// Mode 0 fuzzes a whole token; mode 1 signs the fuzzed bytes as the payload with the pinned key
/// (under the header `JWS.sign` writes),
/// so the claims decoder behind a good signature is reached; mode 2 signs a fuzzed header.
/// Properties: nothing traps; no error text holds the token's signature (a bearer credential never
/// reaches a message); a token that verifies was signed by the pinned key.
func fuzzEntitlementToken(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte() % 3
    let nowOffset = TimeInterval(Int8(bitPattern: input.byte())) * 600
    let now = Date(timeIntervalSince1970: 1_780_000_000 + nowOffset)
    let token: String
    switch mode {
    case 0: token = input.restText()
    case 1: token = EntitlementSeeds.signed(header: EntitlementSeeds.header, payload: input.rest())
    default: token = EntitlementSeeds.signed(header: input.rest(), payload: EntitlementSeeds.claims)
    }
    let verifier = EntitlementVerifier(key: FuzzKeys.secret.publicKey, audience: "harbour")
    let secretPart = token.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    func checkQuiet(_ error: EntitlementTokenError) {
        guard secretPart.count >= 16 else { return }
        fuzzAssert(!"\(error)".contains(secretPart), "an error message holds the token's signature")
    }
    do {
        let claims = try verifier.authorize(token, corpus: "field-guide", tier: "pro", now: now)
        fuzzAssert(claims.covers(corpus: "field-guide", tier: "pro"), "authorize returned claims that do not cover the corpus")
    } catch { checkQuiet(error) }
    // The fuzzed bytes are a whole token only in mode 0; in modes 1 and 2 `authorize` has already
    // parsed the same header and claims behind a good signature, and the signing and the second
    // parse were most of an input's time.
    guard mode == 0 else { return 0 }
    do { _ = try EntitlementToken.decodeUnverified(token) } catch { checkQuiet(error) }
    _ = Base64URL.decode(token).map { bytes in
        fuzzAssert(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "base64url does not round-trip")
    }
    return 0
}

func initializeEntitlementToken(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked(EntitlementSeeds.all)
    precondition(EntitlementSeeds.signed(header: EntitlementSeeds.header, payload: EntitlementSeeds.claims)
                 == (try? JWS.sign(payload: EntitlementSeeds.claims, key: FuzzKeys.secret)),
                 "mode 1's header is not the one JWS.sign writes")
    return 0
}

enum EntitlementSeeds {
    /// The header `JWS.sign` writes for the pinned key; `initializeEntitlementToken` checks that
    /// a token signed under it is byte for byte the one `JWS.sign` makes.
    static let header = Array(#"{"alg":"EdDSA","kid":"0807060504030201","typ":"JWT"}"#.utf8)
    static let claims = Array(#"{"aud":["harbour"],"corpora":["field-guide"],"exp":1780003600,"iat":1779999000,"import_limit":3,"iss":"harbour","jti":"00112233445566778899aabbccddeeff","nbf":1779999000,"sub":"reader-1","tiers":["pro"]}"#.utf8)

    /// `header.payload.signature` signed by the pinned key over any header bytes.
    static func signed(header: [UInt8], payload: [UInt8]) -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(FuzzKeys.sign(Array(input.utf8)))
    }

    static func all() throws -> [(String, [UInt8])] {
        let issued = try EntitlementToken.issue(key: FuzzKeys.secret, issuer: "harbour", subject: "reader-1", audience: "harbour",
                                                corpora: ["field-guide"], tiers: ["pro"], importLimit: 3, lifetime: 3600,
                                                now: Date(timeIntervalSince1970: 1_780_000_000))
        return [
            ("token", [0, 0] + Array(issued.compact.utf8)),
            ("token-alg-none", [0, 0] + Array((Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(claims) + ".").utf8)),
            ("claims", [1, 0] + claims),
            ("claims-string-aud", [1, 3] + Array(#"{"aud":"harbour","exp":1780003600,"sub":"x","iss":"y","corpora":[],"tiers":["pro"]}"#.utf8)),
            ("header", [2, 0] + header),
        ]
    }
}
