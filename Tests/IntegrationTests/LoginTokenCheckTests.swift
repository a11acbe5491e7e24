import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// `corpus login` stored an expired or `alg: none` token with exit 0 and no warning. It now
/// refuses what can never work (exit 4, nothing stored), verifies the signature when the token's
/// `kid` is a root key pinned for a remote, and warns when no pinned key can check it.
@Suite struct LoginTokenCheckTests {
    final class Keys: @unchecked Sendable {
        let work = TempDirectory("login-keys")
        let root: SecretKey
        let entitlement: SecretKey
        let client = PublishedTreeClient()

        init() throws {
            for name in ["root", "entitlement"] {
                let r = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", work.path, "--name", name])
                guard r.status == 0 else { throw IntegrationError("keygen: \(r.stderr)") }
            }
            root = try SecretKey(contentsOf: work.url("root.key"))
            entitlement = try SecretKey(contentsOf: work.url("entitlement.key"))
            // No network: remote add only pins the key.
            try client.addRemote("http://127.0.0.1:9", trust: work.url("root.pub"))
        }

        var tokenFile: String { client.home + "/token" }
    }

    static func claims(exp: Date) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return #"{"corpora":["tides"],"exp":\#(Int(exp.timeIntervalSince1970)),"iat":\#(now),"iss":"test","sub":"reader"}"#
    }

    static func compact(header: String, payload: String, signature: [UInt8]) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "." + Base64URL.encode(signature)
    }

    func expectRefused(_ keys: Keys, _ token: String, code: String, message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = keys.client.snapshot
        let (r, object) = try keys.client.json(["login", token])
        #expect(r.status == 4, "exit \(r.status): \(r.stdout) \(r.stderr)", sourceLocation: sourceLocation)
        let error = InstalledPairFixture.error(object)
        #expect(error?["code"] as? String == code, "\(r.stdout)", sourceLocation: sourceLocation)
        #expect(error?["message"] as? String == message, "\(r.stdout)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: keys.tokenFile), sourceLocation: sourceLocation)
        #expect(keys.client.snapshot == before, sourceLocation: sourceLocation)
        #expect(!r.stdout.contains(token) && !r.stderr.contains(token), "the token is never echoed", sourceLocation: sourceLocation)
    }

    @Test func anUnsignedAlgNoneTokenIsRefused() async throws {
        let keys = try Keys()
        let token = Self.compact(header: #"{"alg":"none","typ":"JWT"}"#, payload: Self.claims(exp: Date().addingTimeInterval(3600)), signature: [])
        try expectRefused(keys, token, code: "token-algorithm-not-allowed",
                          message: "login refused, nothing stored: the entitlement token uses algorithm \"none\"; only EdDSA is accepted")
    }

    @Test func anExpiredTokenIsRefused() async throws {
        let keys = try Keys()
        let token = try EntitlementToken.issue(key: keys.entitlement, issuer: "test", subject: "reader", audience: nil, corpora: ["tides"],
                                               lifetime: 3600, now: Date().addingTimeInterval(-86400)).compact
        let exp = Timestamp.format(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 86400 + 3600).rounded(.down)))
        let (r, object) = try keys.client.json(["login", token])
        #expect(r.status == 4, "\(r.stdout) \(r.stderr)")
        let error = InstalledPairFixture.error(object)
        #expect(error?["code"] as? String == "token-expired")
        #expect((error?["message"] as? String)?.hasPrefix("login refused, nothing stored: the entitlement token expired at ") == true, "\(r.stdout)")
        _ = exp
        #expect(!FileManager.default.fileExists(atPath: keys.tokenFile))
    }

    @Test func aTokenNamingThePinnedRootKeyButSignedByAnotherIsRefused() async throws {
        let keys = try Keys()
        let header = #"{"alg":"EdDSA","kid":"\#(keys.root.keyID)","typ":"JWT"}"#
        let payload = Self.claims(exp: Date().addingTimeInterval(3600))
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let forged = try keys.entitlement.signLegacy(Array(input.utf8), trustedComment: "x").signature
        try expectRefused(keys, Self.compact(header: header, payload: payload, signature: forged), code: "token-signature-invalid",
                          message: "login refused, nothing stored: the entitlement token's signature does not verify")
    }

    @Test func aTokenSignedByThePinnedRootKeyIsStoredWithoutAWarning() async throws {
        let keys = try Keys()
        let token = try EntitlementToken.issue(key: keys.root, issuer: "test", subject: "reader", audience: nil, corpora: ["tides"], lifetime: 3600).compact
        let r = try keys.client.run(["login", token])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: keys.tokenFile) == Data(token.utf8))
    }

    @Test func aTokenNoPinnedKeyCanCheckIsStoredWithAWarning() async throws {
        let keys = try Keys()
        let token = try EntitlementToken.issue(key: keys.entitlement, issuer: "test", subject: "reader", audience: nil, corpora: ["tides"], lifetime: 3600).compact
        let r = try keys.client.run(["login", token])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "warning: no key pinned here can check this token's signature (key \(keys.entitlement.keyID)); the server checks it at the first entitled download\n",
                "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: keys.tokenFile) == Data(token.utf8))
    }
}
