import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The one lower-case hex SHA-256 value (`SHA256Digest`): well formed by construction, encoded
/// as the same hex string the formats always wrote.
@Suite struct SHA256DigestTests {
    static let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" // SHA-256("test")

    @Test func holdsTheHexAndTheBytesOfADigest() throws {
        let d = try #require(SHA256Digest(hex: Self.hex))
        #expect(d.hex == Self.hex && d.description == Self.hex && "\(d)" == Self.hex)
        #expect(d == SHA256.digest(Data("test".utf8)))
        #expect(d.bytes == SHA256.hash(Data("test".utf8)))
        #expect(SHA256Digest(bytes: d.bytes) == d)
        #expect(d.prefix(12) == "9f86d081884c")
    }

    @Test(arguments: ["", "ab", String(repeating: "A", count: 64), String(repeating: "a", count: 63), String(repeating: "a", count: 65),
                      String(repeating: "g", count: 64), "../../x", String(repeating: "a", count: 62) + "é"])
    func refusesAnythingButSixtyFourLowerCaseHexDigits(_ text: String) throws {
        #expect(SHA256Digest(hex: text) == nil)
        #expect(!SHA256Digest.isValid(text))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SHA256Digest.self, from: try JSONEncoder().encode(text)) }
    }

    @Test func encodesAsItsHexStringSoSignedBytesStayTheSame() throws {
        let ref = BundleRef(path: "bundles/\(Self.hex).corpus.zip", digest: SHA256Digest(hex: Self.hex)!, size: 4)
        let bytes = try CanonicalJSON.encode(ref)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"path":"bundles/\#(Self.hex).corpus.zip","sha256":"\#(Self.hex)","size":4}"#)
        #expect(try JSONDecoder().decode(BundleRef.self, from: bytes) == ref)
        let info = EmbedderInfo(id: "m", dimension: 4, encoding: "f32", modelDigest: SHA256Digest(hex: Self.hex))
        #expect(String(decoding: try CanonicalJSON.encode(info), as: UTF8.self)
                == #"{"digest":"\#(Self.hex)","dimension":4,"encoding":"f32","id":"m"}"#)
        #expect(String(decoding: try CanonicalJSON.encode(EmbedderInfo(id: "m", dimension: 4, encoding: "f32")), as: UTF8.self)
                == #"{"dimension":4,"encoding":"f32","id":"m"}"#)
    }

    /// What the downloader refused at download time (`"../../x"`, upper case) cannot reach it.
    @Test(arguments: ["../../x", String(repeating: "A", count: 64)])
    func aBundleReferenceWithAMalformedDigestDoesNotDecode(_ sha: String) {
        let json = #"{"path":"bundles/x","sha256":"\#(sha)","size":1}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BundleRef.self, from: Data(json.utf8)) }
    }

    @Test func aContentAddressedReferenceNamesAndMatchesItsFile() throws {
        let dir = TempDirectory("digest")
        let file = try dir.write("f", "test")
        let ref = try BundleRef(hashing: file) { TreeLayout.bundlePath(sha256: $0.hex) }
        #expect(ref == BundleRef(path: "bundles/\(Self.hex).corpus.zip", digest: SHA256Digest(hex: Self.hex)!, size: 4))
        #expect(ref.matches(fileAt: file))
        try dir.write("f", "tesT")
        #expect(!ref.matches(fileAt: file))
        try dir.write("f", "test!")
        #expect(!ref.matches(fileAt: file))
        #expect(!ref.matches(fileAt: dir.url("missing")))
    }
}
