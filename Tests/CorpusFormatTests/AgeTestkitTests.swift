import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The C2SP CCTV age test vectors (c2sp.org/CCTV/age, `age/testdata`), walked as data: every
/// vector of the X25519 recipient, the header grammar and STREAM, each decrypted by
/// `AgeFileDecryptor` and held to its `expect:` and to the SHA-256 of the plaintext it released.
///
/// The vectors are committed under Tests/Fixtures/age-testkit/testdata (origin and licence in its
/// README); AGE_TESTKIT may name another folder of them, for example a newer CCTV checkout.
@Suite struct AgeTestkitTests {
    /// A missing or emptied fixture folder must fail, not pass with zero cases.
    @Test func theCommittedVectorsAreAllThere() {
        #expect(AgeTestkit.names.count >= 67, "\(AgeTestkit.folder)")
        #expect(AgeTestkit.names.contains("stream_bad_tag") && AgeTestkit.names.contains("x25519_low_order"))
    }

    @Test(arguments: AgeTestkit.names)
    func vector(_ name: String) throws {
        let vector = try AgeTestkit.load(name)
        let identities = try vector.identities.map { try AgeX25519Identity(encoded: $0) }
        let outcome = AgeDriver.decryptFile(vector.file, identities: identities, piece: 7919)
        let category = outcome.error.map(AgeTestkit.category) ?? "success"
        // The reference reads the payload nonce with the header; a short nonce is a header
        // failure there and a truncated payload here (the testkit README allows such aliases).
        let aliased = ["stream_no_nonce", "stream_short_nonce"].contains(name) && category == "payload failure"
        #expect(category == vector.expect || aliased, "\(name): \(outcome.error.map { "\($0)" } ?? "success")")
        if let payload = vector.payloadSHA256 {
            #expect(SHA256.hex(outcome.released) == payload, "\(name): released plaintext")
        }
    }
}

enum AgeTestkit {
    static let folder: String = ProcessInfo.processInfo.environment["AGE_TESTKIT"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/age-testkit/testdata").path

    /// The vectors this implementation covers: X25519, header grammar, STREAM. scrypt, the
    /// post-quantum hybrid and the ASCII armor are not implemented, so their vectors are left out.
    static let names: [String] = {
        guard let all = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        let prefixes = ["empty", "header_", "hmac_", "stanza_", "stream_", "version_", "x25519"]
        return all.filter { n in prefixes.contains { n.hasPrefix($0) } }.sorted()
    }()

    struct Vector {
        var expect = ""
        var payloadSHA256: String?
        var identities: [String] = []
        var file: [UInt8] = []
    }

    static func load(_ name: String) throws -> Vector {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)")))
        var vector = Vector()
        var offset = 0
        var compressed = false
        while true {
            let end = try #require(bytes[offset...].firstIndex(of: 0x0A))
            let line = String(decoding: bytes[offset..<end], as: UTF8.self)
            offset = end + 1
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts[0] {
            case "expect": vector.expect = parts[1]
            case "payload": vector.payloadSHA256 = parts[1]
            case "identity": vector.identities.append(parts[1])
            case "compressed": compressed = parts[1] == "zlib"
            default: break
            }
        }
        vector.file = Array(bytes[offset...])
        if compressed {
            let r = try ProcessRunner.run("/usr/bin/python3", ["-c", "import sys,zlib;sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))"],
                                          stdin: Data(vector.file))
            vector.file = Array(r.stdoutData)
        }
        return vector
    }

    /// The testkit's `expect` value an error stands for.
    static func category(_ error: AgeError) -> String {
        switch error {
        case .malformedHeader, .unsupportedVersion, .headerTooLong, .malformedStanza, .malformedKey, .lowOrderShare: return "header failure"
        case .noMatchingIdentity: return "no match"
        case .headerMACMismatch: return "HMAC failure"
        case .chunkAuthenticationFailed, .truncatedPayload, .trailingData, .emptyFinalChunk: return "payload failure"
        case .crypto: return "crypto"
        }
    }
}
