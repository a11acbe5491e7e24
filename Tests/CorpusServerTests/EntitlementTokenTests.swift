import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The token codec (CorpusFormat) as the server and the client rely on it.
struct EntitlementTokenTests {
    let key: SecretKey
    let verifier: EntitlementVerifier
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        key = try SecretKey.generate()
        verifier = EntitlementVerifier(key: key.publicKey, audience: "demo")
    }

    func issue(corpora: [String] = ["paid-atlas"], tiers: [String] = [], audience: String = "demo", lifetime: TimeInterval = 3600,
               at: Date? = nil, with signer: SecretKey? = nil) throws -> String {
        try EntitlementToken.issue(key: signer ?? key, issuer: "test", subject: "user-1", audience: audience, corpora: corpora,
                                   tiers: tiers, importLimit: 3, lifetime: lifetime, now: at ?? now).compact
    }

    /// A token with an arbitrary header and signature, for algorithm-confusion attacks.
    func forged(header: String, payload: String? = nil, signature: [UInt8] = Array(repeating: 7, count: 32)) throws -> String {
        let real = try issue().split(separator: ".")
        return Base64URL.encode(Array(header.utf8)) + "." + (payload.map { Base64URL.encode(Array($0.utf8)) } ?? String(real[1]))
            + "." + Base64URL.encode(signature)
    }

    @Test func issuedTokenIsCompactEdDSAJWTAndVerifies() throws {
        let token = try issue(tiers: ["gold"])
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(parts[0]))!)) as! [String: String]
        #expect(header == ["alg": "EdDSA", "typ": "JWT", "kid": key.keyID.description])
        let claims = try verifier.verify(token, now: now)
        #expect(claims.issuer == "test" && claims.subject == "user-1" && claims.audience == ["demo"])
        #expect(claims.corpora == ["paid-atlas"] && claims.tiers == ["gold"] && claims.importLimit == 3)
        #expect(claims.issuedAt == now && claims.notBefore == now && claims.expiresAt == now.addingTimeInterval(3600))
        #expect(claims.tokenID?.count == 32)
        #expect(try issue() != issue(), "jti is random")
        #expect(try EntitlementToken.decodeUnverified(token).claims == claims)
    }

    static let leewayCases: [(String, TimeInterval, TimeInterval, EntitlementTokenError?)] = [
        // (name, issued relative to now, lifetime, expected)
        ("fresh", 0, 3600, nil),
        ("expired 59 s ago: within leeway", -3659, 3600, nil),
        ("expired 61 s ago", -3661, 3600, .expired(at: Date(timeIntervalSince1970: 1_800_000_000 - 61))),
        ("expired long ago", -86400 * 30, 3600, .expired(at: Date(timeIntervalSince1970: 1_800_000_000 - 86400 * 30 + 3600))),
        ("issued 30 s in the future: within leeway", 30, 3600, nil),
        ("issued 120 s in the future", 120, 3600, .notYetValid(at: Date(timeIntervalSince1970: 1_800_000_000 + 120))),
    ]

    @Test(arguments: leewayCases)
    func lifetimeHasBoundedLeeway(_ name: String, _ offset: TimeInterval, _ lifetime: TimeInterval, _ expected: EntitlementTokenError?) throws {
        let token = try issue(lifetime: lifetime, at: now.addingTimeInterval(offset))
        if let expected {
            #expect(throws: expected, "\(name)") { try verifier.verify(token, now: now) }
        } else {
            #expect(throws: Never.self, "\(name)") { try verifier.verify(token, now: now) }
        }
        #expect(EntitlementVerifier(key: key.publicKey, audience: nil, leeway: 86400).leeway == EntitlementVerifier.maxLeeway)
    }

    @Test func refusesEveryForgeryWithItsOwnReason() throws {
        let kid = key.keyID.description
        let other = try SecretKey.generate()
        // Signed by another key while claiming ours: the kid matches, the signature does not.
        let impostor = try SecretKey(keyID: key.keyID, seed: Ed25519.randomSeed())
        let good = try issue().split(separator: ".").map(String.init)
        let tamperedPayload = Base64URL.encode(Array(#"{"aud":"demo","corpora":["paid-atlas","paid-notes"],"exp":1900000000,"iss":"test","sub":"user-1"}"#.utf8))

        let cases: [(String, String, EntitlementTokenError)] = [
            ("empty", "", .malformed(reason: "expected three dot-separated parts, found 1")),
            ("two parts", "a.b", .malformed(reason: "expected three dot-separated parts, found 2")),
            ("four parts", "a.b.c.d", .malformed(reason: "expected three dot-separated parts, found 4")),
            ("padding", good[0] + "=." + good[1] + "." + good[2], .malformed(reason: "a part is not unpadded base64url")),
            ("header not JSON", Base64URL.encode(Array("nope".utf8)) + "." + good[1] + "." + good[2], .malformed(reason: "the header is not a JSON object")),
            ("alg none", try forged(header: #"{"alg":"none","kid":"\#(kid)"}"#, signature: []), .algorithmNotAllowed("none")),
            ("alg HS256", try forged(header: #"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#), .algorithmNotAllowed("HS256")),
            ("alg RS256", try forged(header: #"{"alg":"RS256","kid":"\#(kid)"}"#), .algorithmNotAllowed("RS256")),
            ("alg eddsa lower case", try forged(header: #"{"alg":"eddsa","kid":"\#(kid)"}"#), .algorithmNotAllowed("eddsa")),
            ("no alg", try forged(header: #"{"kid":"\#(kid)"}"#), .malformed(reason: "the header has no alg")),
            ("crit", try forged(header: #"{"alg":"EdDSA","kid":"\#(kid)","crit":["exp"]}"#), .malformed(reason: "the header has crit extensions")),
            ("no kid", try forged(header: #"{"alg":"EdDSA"}"#), .unknownKey(keyID: nil)),
            ("unknown kid", try issue(with: other), .unknownKey(keyID: other.keyID.description)),
            ("impostor key", try issue(with: impostor), .signatureInvalid),
            ("tampered payload", good[0] + "." + tamperedPayload + "." + good[2], .signatureInvalid),
            ("truncated signature", good[0] + "." + good[1] + "." + String(good[2].dropLast(4)), .signatureInvalid),
            ("other audience", try issue(audience: "elsewhere"), .wrongAudience(expected: "demo", actual: ["elsewhere"])),
        ]
        for (name, token, expected) in cases {
            do {
                _ = try verifier.verify(token, now: now)
                Issue.record("\(name): accepted")
            } catch {
                #expect(error == expected, "\(name)")
                #expect(error.isInvalidToken == (name != "other audience"), "\(name)")
                // The token is a credential: no error may repeat it or any of its parts.
                for part in token.split(separator: ".") where part.count > 8 {
                    #expect(!error.description.contains(part), "\(name) leaks the token")
                }
            }
        }
    }

    @Test func coverageIsByCorpusIdOrCatalogTier() throws {
        let byID = try issue(corpora: ["paid-atlas"])
        let byTier = try issue(corpora: [], tiers: ["gold"])
        #expect(try verifier.authorize(byID, corpus: "paid-atlas", tier: "gold", now: now).subject == "user-1")
        #expect(try verifier.authorize(byTier, corpus: "paid-atlas", tier: "gold", now: now).tiers == ["gold"])
        #expect(throws: EntitlementTokenError.notCovered(corpus: "paid-notes")) { try verifier.authorize(byID, corpus: "paid-notes", tier: "silver", now: now) }
        #expect(throws: EntitlementTokenError.notCovered(corpus: "paid-notes")) { try verifier.authorize(byTier, corpus: "paid-notes", tier: "silver", now: now) }
        #expect(throws: EntitlementTokenError.notCovered(corpus: "x")) { try verifier.authorize(byTier, corpus: "x", tier: nil, now: now) }
    }

    @Test func claimsOfTheWrongTypeAreMalformed() throws {
        for payload in [#"{"sub":"u","aud":"demo"}"#, #"{"exp":true,"aud":"demo"}"#, #"{"exp":1900000000,"corpora":"paid-atlas"}"#,
                        #"{"exp":1900000000,"import_limit":-1}"#, #"{"exp":1e300}"#, "[1,2]"] {
            let token = try JWS.sign(payload: Array(payload.utf8), key: key)
            #expect(throws: EntitlementTokenError.self, "\(payload)") { try verifier.verify(token, now: now) }
            do { _ = try verifier.verify(token, now: now) } catch {
                guard case .malformed = error else { Issue.record("\(payload): \(error)"); continue }
            }
        }
    }

    @Test func printingATokenNeverShowsIt() throws {
        let token = try EntitlementToken.issue(key: key, issuer: "t", subject: "someone", audience: "demo", corpora: ["a"], lifetime: 60)
        for text in [token.description, token.debugDescription, "\(token)", String(reflecting: token)] {
            #expect(!text.contains(token.compact))
            #expect(!text.contains(String(token.compact.split(separator: ".")[2])))
        }
    }

    // MARK: interoperability with PyJWT (Debian's python3-jwt and python3-cryptography)

    static let python = "/usr/bin/python3"
    static var hasPyJWT: Bool {
        (try? ProcessRunner.run(python, ["-c", "import jwt, cryptography"]).status) == 0
    }

    /// The script reads the minisign secret key file itself: the Ed25519 seed is bytes 62..<94 and
    /// the key id bytes 54..<62 (little-endian) of its base64 line (docs/format.md).
    static let script = #"""
    import base64, json, sys, time, jwt
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    mode, keyfile, aud = sys.argv[1], sys.argv[2], sys.argv[3]
    raw = base64.b64decode(open(keyfile).read().splitlines()[1])
    kid = raw[54:62][::-1].hex().upper()
    priv = Ed25519PrivateKey.from_private_bytes(raw[62:94])
    if mode == "verify":
        token = sys.stdin.read().strip()
        assert jwt.get_unverified_header(token)["kid"] == kid
        print(json.dumps(jwt.decode(token, priv.public_key(), algorithms=["EdDSA"], audience=aud), sort_keys=True))
    else:
        now = int(time.time())
        print(jwt.encode({"iss": "pyjwt", "sub": "py-user", "aud": aud, "iat": now, "nbf": now, "exp": now + 600,
                          "jti": "py-1", "tiers": ["gold"], "import_limit": 2}, priv, algorithm="EdDSA", headers={"kid": kid}))
    """#

    @Test(.enabled(if: hasPyJWT)) func pyJWTVerifiesCorpusdTokensAndCorpusdVerifiesPyJWTTokens() throws {
        let dir = TempDirectory("pyjwt")
        let keyFile = try dir.write("k.key", key.fileText)
        let scriptFile = try dir.write("interop.py", Self.script)
        let token = try EntitlementToken.issue(key: key, issuer: "corpusd", subject: "user-9", audience: "demo",
                                               corpora: ["paid-atlas"], importLimit: 5, lifetime: 600)
        let r = try ProcessRunner.run(Self.python, [scriptFile, "verify", keyFile, "demo"], stdin: Data(token.compact.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        let claims = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(claims?["sub"] as? String == "user-9")
        #expect(claims?["corpora"] as? [String] == ["paid-atlas"])
        #expect(claims?["import_limit"] as? Int == 5)
        // PyJWT refuses it for another audience too.
        #expect(try ProcessRunner.run(Self.python, [scriptFile, "verify", keyFile, "other"], stdin: Data(token.compact.utf8)).status != 0)

        let issued = try ProcessRunner.run(Self.python, [scriptFile, "issue", keyFile, "demo"])
        #expect(issued.status == 0, "\(issued.stderr)")
        let pyToken = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verifierNow = EntitlementVerifier(key: key.publicKey, audience: "demo")
        let c = try verifierNow.authorize(pyToken, corpus: "paid-atlas", tier: "gold")
        #expect(c.issuer == "pyjwt" && c.subject == "py-user" && c.importLimit == 2 && c.tiers == ["gold"])
        let stranger = EntitlementVerifier(key: try SecretKey.generate().publicKey, audience: "demo")
        #expect(throws: EntitlementTokenError.self) { try stranger.verify(pyToken) }
    }
}
