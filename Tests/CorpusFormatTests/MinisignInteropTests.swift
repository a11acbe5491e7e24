import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Interop with the real /usr/bin/minisign in both directions, and tamper refusals on both sides.
@Suite struct MinisignInteropTests {
    let dir = TempDirectory("minisign")

    func minisign(_ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/minisign", args, stdin: Data())
    }

    func writeMessage(_ name: String = "message.txt") throws -> String {
        try dir.write(name, "corpus bundle manifest, or any file\nsecond line ü\n")
    }

    /// Our key pair written in minisign's formats.
    func ourKeyFiles() throws -> (key: SecretKey, secretPath: String, publicPath: String) {
        let key = try SecretKey.generate()
        let s = try dir.write("our.key", key.fileText)
        let p = try dir.write("our.pub", key.publicKey.fileText)
        return (key, s, p)
    }

    @Test func minisignAcceptsOurPrehashedSignature() throws {
        let (key, _, pub) = try ourKeyFiles()
        let message = try writeMessage()
        let sig = try key.sign(fileAt: message, trustedComment: "corpus:sea-guide version:1 content:0123456789abcdef")
        try dir.write("message.txt.minisig", sig.fileText)
        let r = try minisign(["-V", "-H", "-m", message, "-p", pub])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("corpus:sea-guide version:1 content:0123456789abcdef"))
    }

    @Test func minisignAcceptsOurLegacySignature() throws {
        let (key, _, pub) = try ourKeyFiles()
        let message = try writeMessage()
        let sig = try key.signLegacy(try Data(contentsOf: URL(fileURLWithPath: message)), trustedComment: "legacy")
        try dir.write("message.txt.minisig", sig.fileText)
        let r = try minisign(["-V", "-m", message, "-p", pub])
        #expect(r.status == 0, "\(r.stderr)")
        // -H demands a prehashed signature, so the legacy one is refused with it.
        #expect(try minisign(["-V", "-H", "-m", message, "-p", pub]).status != 0)
    }

    @Test func minisignSignsWithOurSecretKey() throws {
        let (key, secret, _) = try ourKeyFiles()
        let message = try writeMessage()
        let r = try minisign(["-S", "-s", secret, "-m", message, "-t", "signed by minisign with our key"])
        #expect(r.status == 0, "\(r.stderr)")
        let sig = try Signature(contentsOf: message + ".minisig")
        #expect(sig.trustedComment == "signed by minisign with our key")
        try key.publicKey.verify(sig, fileAt: message)
    }

    @Test(arguments: [false, true])
    func weAcceptMinisignKeysAndSignatures(legacy: Bool) throws {
        let pubPath = dir.url("x.pub"), secPath = dir.url("x.key")
        let g = try minisign(["-G", "-W", "-p", pubPath, "-s", secPath])
        #expect(g.status == 0, "\(g.stderr)")
        let secret = try SecretKey(contentsOf: secPath)
        let pub = try PublicKey(contentsOf: pubPath)
        #expect(secret.publicKey == pub)

        let message = try writeMessage()
        let r = try minisign(["-S", "-s", secPath, "-m", message, "-t", "from minisign"] + (legacy ? ["-l"] : []))
        #expect(r.status == 0, "\(r.stderr)")
        let sig = try Signature(contentsOf: message + ".minisig")
        #expect(sig.algorithm == (legacy ? .legacy : .prehashed))
        try pub.verify(sig, fileAt: message)
        try pub.verify(sig, message: try Data(contentsOf: URL(fileURLWithPath: message)))
        // And our signature with their key verifies with minisign.
        let ours = try secret.sign(fileAt: message, trustedComment: "ours with their key")
        try dir.write("message.txt.minisig", ours.fileText)
        #expect(try minisign(["-V", "-m", message, "-p", pubPath]).status == 0)
    }

    // MARK: Tampering, both directions

    enum Tamper: String, CaseIterable, Sendable {
        case fileByte, signatureBytes, trustedComment, keyID
    }

    /// Applies a tamper to the message file or signature text and returns the new signature text.
    func apply(_ tamper: Tamper, message: String, signature: String) throws -> String {
        var lines = signature.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch tamper {
        case .fileByte:
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: message)))
            bytes[3] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: message))
        case .signatureBytes, .keyID:
            var raw = [UInt8](Data(base64Encoded: lines[1])!)
            raw[tamper == .keyID ? 2 : 20] ^= 0x01
            lines[1] = Data(raw).base64EncodedString()
        case .trustedComment:
            lines[2] = lines[2] + "!"
        }
        return lines.joined(separator: "\n")
    }

    func expectedError(_ tamper: Tamper, key: PublicKey, signature: String) throws -> FormatError {
        switch tamper {
        case .fileByte, .signatureBytes: return .signatureInvalid(what: "the signed file")
        case .trustedComment: return .signatureInvalid(what: "the trusted comment")
        case .keyID: return .keyIDMismatch(expected: key.keyID.description, actual: try Signature(text: signature).keyID.description)
        }
    }

    @Test(arguments: Tamper.allCases)
    func tamperedOurSignatureIsRefusedByUsAndMinisign(tamper: Tamper) throws {
        let (key, _, pub) = try ourKeyFiles()
        let message = try writeMessage()
        let sig = try key.sign(fileAt: message, trustedComment: "trusted")
        let tampered = try apply(tamper, message: message, signature: sig.fileText)
        try dir.write("message.txt.minisig", tampered)
        let before = DirectorySnapshot(dir.path)
        #expect(throws: try expectedError(tamper, key: key.publicKey, signature: tampered)) {
            try key.publicKey.verify(try Signature(text: tampered), fileAt: message)
        }
        #expect(DirectorySnapshot(dir.path) == before)
        #expect(try minisign(["-V", "-m", message, "-p", pub]).status != 0)
    }

    @Test(arguments: Tamper.allCases)
    func tamperedMinisignSignatureIsRefusedByUsAndMinisign(tamper: Tamper) throws {
        let pubPath = dir.url("x.pub"), secPath = dir.url("x.key")
        #expect(try minisign(["-G", "-W", "-p", pubPath, "-s", secPath]).status == 0)
        let pub = try PublicKey(contentsOf: pubPath)
        let message = try writeMessage()
        #expect(try minisign(["-S", "-s", secPath, "-m", message, "-t", "trusted"]).status == 0)
        let original = try String(contentsOfFile: message + ".minisig", encoding: .utf8)
        let tampered = try apply(tamper, message: message, signature: original)
        try dir.write("message.txt.minisig", tampered)
        let before = DirectorySnapshot(dir.path)
        #expect(throws: try expectedError(tamper, key: pub, signature: tampered)) {
            try pub.verify(try Signature(text: tampered), fileAt: message)
        }
        #expect(DirectorySnapshot(dir.path) == before)
        #expect(try minisign(["-V", "-m", message, "-p", pubPath]).status != 0)
    }

    @Test func bundleManifestSignatureVerifiesWithMinisign() throws {
        // A bundle downloaded by hand verifies on its own: unzip it and run minisign -V.
        let f = try BundleFixture()
        let (bundle, _) = try f.writeBundle()
        let out = dir.url("unzipped")
        #expect(try ProcessRunner.run("unzip", ["-q", bundle, "-d", out]).status == 0)
        let pub = try dir.write("bundle.pub", f.key.publicKey.fileText)
        let r = try minisign(["-V", "-m", "\(out)/corpus.json", "-p", pub])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("corpus:sea-guide version:1.2"))
    }
}
