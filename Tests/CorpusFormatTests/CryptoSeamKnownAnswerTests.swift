import Foundation
import Testing
@testable import CorpusFormat

/// Known answers for the crypto seam (`CryptoBackend`), written against the public `Digest`,
/// `SHA256` and `Ed25519.verify` so that they check whichever implementation this build
/// compiled in (OpenSSL on Linux, CryptoKit on Apple platforms). RFC 8032's signing vectors
/// are in Ed25519KnownAnswerTests.
@Suite struct CryptoSeamKnownAnswerTests {
    /// FIPS 180-2 / NIST CAVP SHA-256 short and long messages.
    static let sha256Vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]
    static let millionADigest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

    @Test func theBuiltImplementationIsThePlatformOne() {
        #if canImport(CryptoKit)
        #expect(CryptoImplementation.name == "CryptoKit")
        #else
        #expect(CryptoImplementation.name == "OpenSSL")
        #endif
    }

    @Test func sha256ShortMessages() {
        for v in Self.sha256Vectors {
            #expect(SHA256.hex(Array(v.message.utf8)) == v.digest, "\(v.message)")
        }
    }

    /// Every split of each message into two updates, and one update per byte, give the same
    /// digest: block boundaries (55, 56, 64 bytes) are where a streaming hash goes wrong.
    @Test func sha256AnySplitOfTheUpdates() {
        for v in Self.sha256Vectors {
            let bytes = Array(v.message.utf8)
            for cut in 0...bytes.count {
                let d = Digest(.sha256)
                d.update(bytes[..<cut])
                d.update(bytes[cut...])
                #expect(Hex.encode(d.finalize()) == v.digest, "split at \(cut) of \(v.message)")
            }
            let d = Digest(.sha256)
            for b in bytes { d.update([b]) }
            #expect(Hex.encode(d.finalize()) == v.digest)
        }
    }

    @Test(arguments: [1_000_000, 64, 63, 65, 4096, 1 << 20])
    func sha256OfAMillionAInChunks(_ chunk: Int) {
        let d = Digest(.sha256)
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: min(chunk, 1_000_000))
        var left = 1_000_000
        while left > 0 {
            let n = min(left, piece.count)
            d.update(piece[..<n])
            left -= n
        }
        #expect(Hex.encode(d.finalize()) == Self.millionADigest)
    }

    /// RFC 7693 Appendix A ("abc") and the empty message, through the seam's BLAKE2b-512.
    @Test func blake2b512KnownAnswers() {
        let abc = Digest(.blake2b512)
        abc.update(Array("abc".utf8))
        #expect(Hex.encode(abc.finalize()) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(Hex.encode(Digest(.blake2b512).finalize()) == "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce")
    }

    // MARK: Ed25519 verification strictness (what the OpenSSL path refuses today)

    static let test1Public = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    static let test1Signature = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"

    /// RFC 8032 5.1.7: S must be below the group order L. TEST 1's signature with S + L is the
    /// same point equation, so a verifier that skips the check accepts it (malleability).
    @Test func signatureWithNonCanonicalSIsRefused() throws {
        let key = try #require(Hex.decode(Self.test1Public))
        let good = try #require(Hex.decode(Self.test1Signature))
        let sPlusL = try #require(Hex.decode("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901554c8c7872aa064e049dbb3013fbf29380d25bf5f0595bbe24655141438e7a101b"))
        #expect(Ed25519.verify(signature: good, message: [UInt8](), publicKey: key))
        #expect(!Ed25519.verify(signature: sPlusL, message: [UInt8](), publicKey: key))
    }

    /// A public key that is not a point on the curve (y = 2 has no x) is refused, not a crash.
    @Test func publicKeyOffTheCurveIsRefused() throws {
        let key = [UInt8(2)] + [UInt8](repeating: 0, count: 31)
        let sig = try #require(Hex.decode(Self.test1Signature))
        #expect(!Ed25519.verify(signature: sig, message: [UInt8](), publicKey: key))
    }

    /// The identity as public key with R = identity, S = 0 satisfies the cofactorless equation
    /// for every message. Pinned at what the built implementation does today (see docs/apple.md).
    @Test func smallOrderKeyWithTheTrivialSignature() {
        let identity = [UInt8(1)] + [UInt8](repeating: 0, count: 31)
        let signature = identity + [UInt8](repeating: 0, count: 32)
        let accepted = Ed25519.verify(signature: signature, message: Array("any message".utf8), publicKey: identity)
        #expect(accepted == CryptoSeamKnownAnswerTests.trivialSignatureUnderSmallOrderKeyAccepted)
    }
    static let trivialSignatureUnderSmallOrderKeyAccepted = true
}

/// The package's own BLAKE2b-512 (the CryptoKit side's prehash for minisign) against RFC 7693
/// and, on Linux, against OpenSSL's for many lengths and update splits.
@Suite struct BLAKE2b512Tests {
    @Test func rfc7693Vector() {
        let h = BLAKE2b512()
        Array("abc".utf8).withUnsafeBytes { h.update($0) }
        #expect(Hex.encode(h.finalize()) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }

    #if !canImport(CryptoKit)
    @Test func matchesOpenSSLAcrossBlockBoundaries() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 111, 127, 128, 129, 255, 256, 257, 1000, 100_000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let cut = length / 3
            let ours = BLAKE2b512()
            bytes[..<cut].withUnsafeBytes { ours.update($0) }
            bytes[cut...].withUnsafeBytes { ours.update($0) }
            let theirs = OpenSSLCryptoBackend.makeBLAKE2b512()
            bytes.withUnsafeBytes { theirs.update($0) }
            #expect(ours.finalize() == theirs.finalize(), "length \(length)")
        }
    }
    #endif
}
