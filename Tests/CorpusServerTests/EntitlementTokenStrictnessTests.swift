import Foundation
import Testing
@testable import CorpusFormat
import CorpusTestSupport

/// The token verifier's edges: duplicate JSON keys (RFC 8259 §4, RFC 7515 §4 "Header Parameter
/// names ... MUST be unique", RFC 7519 §4), the audience the server always requires, and the
/// exact leeway boundaries of `exp`, `nbf` and `iat`.
struct EntitlementTokenStrictnessTests {
    let key: SecretKey
    let verifier: EntitlementVerifier
    static let now: Int64 = 1_800_000_000
    var nowDate: Date { Date(timeIntervalSince1970: TimeInterval(Self.now)) }

    init() throws {
        key = try SecretKey.generate()
        verifier = EntitlementVerifier(key: key.publicKey, audience: "demo", leeway: 60)
    }

    /// A properly signed token with exactly these payload bytes.
    func signed(_ payload: String) throws -> String { try JWS.sign(payload: Array(payload.utf8), key: key) }

    /// A properly signed token with exactly these header and payload bytes.
    func signed(header: String, payload: String) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(try Ed25519.sign(Array(input.utf8), seed: key.seed))
    }

    static let duplicatePayloads: [(String, String, String)] = [
        ("exp twice, the first one expired", #"{"aud":"demo","corpora":["a"],"exp":1,"exp":1900000000}"#, "exp"),
        ("exp twice, the first one valid", #"{"aud":"demo","corpora":["a"],"exp":1900000000,"exp":1}"#, "exp"),
        ("aud twice", #"{"aud":"elsewhere","aud":"demo","corpora":["a"],"exp":1900000000}"#, "aud"),
        ("corpora twice", #"{"aud":"demo","corpora":["a"],"corpora":["b"],"exp":1900000000}"#, "corpora"),
        ("the same name escaped", #"{"aud":"demo","corpora":["a"],"exp":1900000000,"\u0065xp":1}"#, "exp"),
        ("a duplicate inside an extra claim", #"{"aud":"demo","corpora":["a"],"exp":1900000000,"x":[{"k":1,"k":2}]}"#, "x.0.k"),
    ]

    @Test(arguments: duplicatePayloads)
    func aPayloadWithADuplicateKeyIsMalformed(_ name: String, _ payload: String, _ duplicate: String) throws {
        let token = try signed(payload)
        let expected = EntitlementTokenError.malformed(reason: "claims: duplicate key \"\(duplicate)\"")
        #expect(throws: expected, "\(name)") { try verifier.verify(token, now: nowDate) }
        // The client reads claims without verifying them; it must not see a different token either.
        #expect(throws: expected, "\(name)") { try EntitlementToken.decodeUnverified(token) }
    }

    @Test func aHeaderWithADuplicateKeyIsMalformed() throws {
        let kid = key.keyID.description
        let payload = #"{"aud":"demo","corpora":["a"],"exp":1900000000}"#
        for (header, dup) in [(#"{"alg":"none","alg":"EdDSA","kid":"\#(kid)"}"#, "alg"),
                              (#"{"alg":"EdDSA","alg":"none","kid":"\#(kid)"}"#, "alg"),
                              (#"{"alg":"EdDSA","kid":"0000000000000000","kid":"\#(kid)"}"#, "kid"),
                              (#"{"alg":"EdDSA","kid":"\#(kid)","typ":"JWT","typ":"JWT"}"#, "typ")] {
            let token = try signed(header: header, payload: payload)
            #expect(throws: EntitlementTokenError.malformed(reason: "the header has a duplicate key \"\(dup)\""), "\(header)") {
                try verifier.verify(token, now: nowDate)
            }
        }
        // The same header without the duplicate verifies: the refusal is about the duplicate alone.
        #expect(try verifier.verify(try signed(header: #"{"alg":"EdDSA","kid":"\#(kid)","typ":"JWT"}"#, payload: payload), now: nowDate).corpora == ["a"])
    }

    @Test func aTokenWithoutAudienceIsRefusedWhereACatalogIsKnown() throws {
        let token = try signed(#"{"corpora":["a"],"exp":1900000000,"sub":"u"}"#)
        #expect(throws: EntitlementTokenError.wrongAudience(expected: "demo", actual: [])) { try verifier.verify(token, now: nowDate) }
        let error = try #require(throws: EntitlementTokenError.self) { try verifier.verify(token, now: nowDate) }
        #expect(!error.isInvalidToken)
        #expect(error.description == "the entitlement token names no audience (aud); this server accepts only tokens for catalog \"demo\"")
        // An issued token without an audience is the same thing.
        let issued = try EntitlementToken.issue(key: key, issuer: "t", subject: "u", audience: nil, corpora: ["a"], lifetime: 600, now: nowDate)
        #expect(throws: EntitlementTokenError.wrongAudience(expected: "demo", actual: [])) { try verifier.verify(issued.compact, now: nowDate) }
        // A verifier told no catalog (audience nil) checks no audience, as documented.
        let anyCatalog = EntitlementVerifier(key: key.publicKey, audience: nil)
        #expect(try anyCatalog.verify(token, now: nowDate).corpora == ["a"])
    }

    @Test func theServerAnswers403ToATokenWithoutAudience() throws {
        let f = try ServerFixture()
        let noAudience = try EntitlementToken.issue(key: f.tree.entitlementKey, issuer: "t", subject: "u", audience: nil,
                                                    corpora: ["paid-atlas"], lifetime: 600).compact
        let r = try f.get(f.bundle("paid-atlas"), headers: f.bearer(noAudience))
        #expect(r.status == 403)
        #expect(r.text == "403 the entitlement token names no audience (aud); this server accepts only tokens for catalog \"demo\"\n")
        #expect(r.header("WWW-Authenticate")?.contains("insufficient_scope") == true)
        #expect(try f.get("/_auth", headers: ["X-Original-URI": f.bundle("paid-atlas"), "Authorization": "Bearer " + noAudience]).status == 403)
    }

    /// (name, claims beyond aud/corpora, leeway, accepted?) with now = 1_800_000_000.
    /// A token is good while now < exp + leeway, and from nbf − leeway (iat the same) on.
    static let boundaries: [(String, String, TimeInterval, Bool)] = [
        ("exp = now - leeway", #""exp":1799999940"#, 60, false),
        ("exp = now - leeway + 1", #""exp":1799999941"#, 60, true),
        ("exp = now, leeway 0", #""exp":1800000000"#, 0, false),
        ("exp = now + 1, leeway 0", #""exp":1800000001"#, 0, true),
        ("nbf = now + leeway", #""exp":1900000000,"nbf":1800000060"#, 60, true),
        ("nbf = now + leeway + 1", #""exp":1900000000,"nbf":1800000061"#, 60, false),
        ("nbf = now, leeway 0", #""exp":1900000000,"nbf":1800000000"#, 0, true),
        ("nbf = now + 1, leeway 0", #""exp":1900000000,"nbf":1800000001"#, 0, false),
        ("iat = now + leeway", #""exp":1900000000,"iat":1800000060"#, 60, true),
        ("iat = now + leeway + 1", #""exp":1900000000,"iat":1800000061"#, 60, false),
        ("iat = now + 1, leeway 0", #""exp":1900000000,"iat":1800000001"#, 0, false),
        ("iat = now + leeway + 1, nbf = now", #""exp":1900000000,"iat":1800000061,"nbf":1800000000"#, 60, false),
    ]

    @Test(arguments: boundaries)
    func leewayBoundariesAreExact(_ name: String, _ claims: String, _ leeway: TimeInterval, _ accepted: Bool) throws {
        let token = try signed(#"{"aud":"demo","corpora":["a"],\#(claims)}"#)
        let v = EntitlementVerifier(key: key.publicKey, audience: "demo", leeway: leeway)
        if accepted {
            #expect(throws: Never.self, "\(name)") { try v.verify(token, now: nowDate) }
        } else {
            let error = try #require(throws: EntitlementTokenError.self, "\(name)") { try v.verify(token, now: nowDate) }
            switch error {
            case .expired: #expect(name.hasPrefix("exp"), "\(name): \(error)")
            case .notYetValid: #expect(!name.hasPrefix("exp"), "\(name): \(error)")
            default: Issue.record("\(name): \(error)")
            }
        }
    }
}
