import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// age's X25519 identity and recipient strings (C2SP age, "The X25519 recipient type"): the
/// spec's own example pair, round trips, `age-keygen`'s keys, and malformed strings refused.
@Suite struct AgeKeyEncodingTests {
    @Test func theSpecExampleIdentityHasTheSpecExampleRecipient() throws {
        let identity = try AgeX25519Identity(encoded: "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX")
        #expect(identity.recipient.encoded == "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj")
        #expect(identity.encoded == "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX")
    }

    @Test func generatedKeysRoundTripAndHideTheSecret() throws {
        let identity = try AgeX25519Identity.generate()
        #expect(identity.encoded.hasPrefix("AGE-SECRET-KEY-1"))
        #expect(try AgeX25519Identity(encoded: identity.encoded) == identity)
        #expect(try AgeX25519Identity(encoded: identity.encoded.lowercased()) == identity)
        #expect(try AgeX25519Recipient(encoded: identity.recipient.encoded) == identity.recipient)
        #expect(!"\(identity)".contains(identity.encoded))
        #expect("\(identity)".contains(identity.recipient.encoded))
        #expect("\(try AgeFileKey.generate())" == "AgeFileKey(redacted)")
    }

    @Test func ageKeygenKeysDecodeToTheSameRecipient() throws {
        let dir = TempDirectory("age-keygen")
        let keyPath = dir.url("key.txt")
        let generated = try ProcessRunner.run("/usr/bin/age-keygen", ["-o", keyPath])
        #expect(generated.status == 0, "\(generated.stderr)")
        let text = try String(contentsOfFile: keyPath, encoding: .utf8)
        let secret = try #require(text.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        let recipient = try ProcessRunner.run("/usr/bin/age-keygen", ["-y", keyPath]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try AgeX25519Identity(encoded: String(secret)).recipient.encoded == recipient)
    }

    @Test(arguments: [
        ("AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEx", "not valid Bech32"),
        ("AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEY", "not valid Bech32"),
        ("age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj", "not an AGE-SECRET-KEY-1 string"),
        ("", "not valid Bech32"),
    ])
    func malformedIdentitiesAreRefused(text: String, reason: String) {
        #expect(throws: AgeError.malformedKey(what: "age identity", reason: reason)) { try AgeX25519Identity(encoded: text) }
    }

    @Test(arguments: [
        ("age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwk", "not valid Bech32"),
        ("AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX", "not an age1 string"),
        ("AGE1ZVKYG2LQZRAA2LNJVQEJ32NKUU0UES2S82HZRYE869XEEXVN73EQUNUJWJ", "not an age1 string"),
    ])
    func malformedRecipientsAreRefused(text: String, reason: String) {
        #expect(throws: AgeError.malformedKey(what: "age recipient", reason: reason)) { try AgeX25519Recipient(encoded: text) }
    }
}
