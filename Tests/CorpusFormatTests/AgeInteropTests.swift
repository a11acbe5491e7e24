import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Interop with the real /usr/bin/age (Debian's 1.1.1) in both directions, including the split
/// the product relies on: one payload encrypted once, a header per device made separately.
@Suite struct AgeInteropTests {
    let dir = TempDirectory("age-interop")

    /// A device's identity made by `age-keygen`, as both its file and our parsed value.
    func keygenIdentity(_ name: String) throws -> (path: String, identity: AgeX25519Identity) {
        let path = dir.url(name)
        let r = try ProcessRunner.run("/usr/bin/age-keygen", ["-o", path])
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        return (path, try AgeX25519Identity(encoded: String(line)))
    }

    func ageDecrypt(_ file: String, identity: String) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/age", ["-d", "-i", identity, file])
    }

    @Test(arguments: [0, 1, 65536, 65537, 300_001])
    func ageDecryptsOneSharedPayloadWithEachDevicesHeader(size: Int) throws {
        let plain = AgeDriver.plaintext(size)
        let fileKey = try AgeFileKey.generate()
        let payload = try AgeDriver.encryptPayload(plain, fileKey: fileKey)
        let (phonePath, phone) = try keygenIdentity("phone.txt")
        let (laptopPath, laptop) = try keygenIdentity("laptop.txt")
        // Headers made after, and apart from, the payload.
        let phoneFile = try dir.write("phone.age", Data(try AgeHeader.make(fileKey: fileKey, recipients: [phone.recipient]).encoded + payload))
        let laptopFile = try dir.write("laptop.age", Data(try AgeHeader.make(fileKey: fileKey, recipients: [laptop.recipient]).encoded + payload))
        let r1 = try ageDecrypt(phoneFile, identity: phonePath)
        #expect(r1.status == 0, "\(r1.stderr)")
        #expect(Array(r1.stdoutData) == plain)
        let r2 = try ageDecrypt(laptopFile, identity: laptopPath)
        #expect(r2.status == 0, "\(r2.stderr)")
        #expect(Array(r2.stdoutData) == plain)
        // A header for another device gives that device nothing.
        let r3 = try ageDecrypt(laptopFile, identity: phonePath)
        #expect(r3.status != 0)
        #expect(r3.stdoutData.isEmpty)
    }

    @Test(arguments: [0, 1, 65536, 131_072, 300_001])
    func weDecryptWhatAgeEncrypts(size: Int) throws {
        let identity = try AgeX25519Identity.generate()
        let plainPath = try dir.write("plain-\(size)", Data(AgeDriver.plaintext(size)))
        let encrypted = dir.url("from-age-\(size).age")
        let r = try ProcessRunner.run("/usr/bin/age", ["-e", "-r", identity.recipient.encoded, "-o", encrypted, plainPath])
        #expect(r.status == 0, "\(r.stderr)")
        var out: [UInt8] = []
        try AgeFileDecryptor.decryptFile(atPath: encrypted, identities: [identity]) { out += $0 }
        #expect(out == AgeDriver.plaintext(size))
    }

    /// age's file, damaged four ways: each refused with its own error, and nothing written.
    @Test func damagedAgeFilesAreRefused() throws {
        let identity = try AgeX25519Identity.generate()
        let plainPath = try dir.write("plain", Data(AgeDriver.plaintext(200_000)))
        let encrypted = dir.url("from-age.age")
        #expect(try ProcessRunner.run("/usr/bin/age", ["-e", "-r", identity.recipient.encoded, "-o", encrypted, plainPath]).status == 0)
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: encrypted)))
        let headerLength = file.count - (16 + 200_000 + 4 * 16)

        var tampered = file
        tampered[headerLength + 16 + 65536 + 16 + 5] ^= 0x40
        var cases: [(String, [UInt8], AgeX25519Identity, AgeError)] = [
            ("tampered chunk", tampered, identity, .chunkAuthenticationFailed(chunk: 1)),
            ("truncated at a chunk boundary", Array(file[..<(headerLength + 16 + 2 * 65552)]), identity, .truncatedPayload(afterChunks: 2)),
            // The final chunk is short, so a byte after it makes that chunk fail as a whole.
            ("data after the final chunk", file + [0x0A], identity, .chunkAuthenticationFailed(chunk: 3)),
        ]
        cases.append(("another device's key", file, try AgeX25519Identity.generate(), .noMatchingIdentity))
        for (name, bytes, key, expected) in cases {
            let path = try dir.write("case.age", Data(bytes))
            let outcome = DirectorySnapshot.attempt(leaving: dir.path) {
                try AgeFileDecryptor.decryptFile(atPath: path, identities: [key]) { _ in }
            }
            #expect(outcome.error as? AgeError == expected, "\(name)")
            #expect(outcome.unchanged, "\(name)")
            #expect((outcome.error as? AgeError)?.isVerificationRefusal == true, "\(name)")
        }
    }
}
