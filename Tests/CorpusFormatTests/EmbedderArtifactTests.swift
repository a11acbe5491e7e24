import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The embedder artifact (`.embedder.zip`): round trip, determinism, minisign interop, and the
/// refusals a downloaded model must meet, each with the target folder left unchanged.
@Suite struct EmbedderArtifactTests {
    /// A model folder of made-up files (the artifact does not interpret them) and a signing key.
    final class Fixture {
        let dir = TempDirectory("embedder-artifact")
        let key: SecretKey
        let model: String
        let home: String
        let files: [String: [UInt8]]

        init() throws {
            key = try SecretKey.generate()
            model = dir.url("model")
            home = dir.url("home")
            try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: "\(home)/other", withIntermediateDirectories: true)
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: "\(home)/other/keep.txt"))
            var files: [String: [UInt8]] = [:]
            files["model.safetensors"] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }
            files["vocab.txt"] = Array("[PAD]\n[UNK]\n[CLS]\n[SEP]\ntide\nharbour\n".utf8)
            files["config.json"] = Array(#"{"hidden_size":384}"#.utf8)
            files["tokenizer_config.json"] = Array(#"{"do_lower_case":true}"#.utf8)
            for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: "\(model)/\(name)")) }
            self.files = files
        }

        @discardableResult
        func write(_ name: String = "m.embedder.zip", key: SecretKey? = nil) throws -> (path: String, digest: SHA256Digest) {
            let path = dir.url(name)
            let r = try EmbedderArtifactWriter.write(modelDirectory: model, id: "all-MiniLM-L6-v2", dimension: 384, key: key ?? self.key, to: path)
            return (path, r.digest)
        }

        /// The members of a valid artifact as stored zip entries, for crafting hostile variants.
        func craftedEntries(weights: [UInt8]? = nil, manifestBytes: Data? = nil) throws -> [CraftedZipEntry] {
            let signed = try EmbedderArtifactWriter.manifest(modelDirectory: model, id: "all-MiniLM-L6-v2", dimension: 384)
            let bytes = manifestBytes ?? signed.bytes
            let signature = try key.sign(bytes, trustedComment: signed.manifest.trustedComment(digest: signed.digest))
            var entries = [CraftedZipEntry(name: "embedder.json", stored: [UInt8](bytes)),
                           CraftedZipEntry(name: "embedder.json.minisig", stored: Array(signature.fileText.utf8))]
            for name in EmbedderArtifactLayout.payloadMembers {
                entries.append(CraftedZipEntry(name: name, stored: name == "model.safetensors" ? (weights ?? files[name]!) : files[name]!))
            }
            return entries
        }

        func writeCrafted(_ entries: [CraftedZipEntry]) throws -> String {
            let path = dir.url("crafted-\(UUID().uuidString).embedder.zip")
            try Data(ZipCrafting.build(entries)).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// Extracts into `home/model`; returns the error and whether `home` is byte-identical afterwards.
        func attemptExtract(_ path: String, keys: [PublicKey]? = nil, zip: ZipImplementation = .platformDefault) -> (error: Error?, unchanged: Bool) {
            DirectorySnapshot.attempt(leaving: home) {
                try EmbedderArtifactReader(path: path, implementation: zip).extract(to: "\(home)/model", trustedKeys: keys ?? [key.publicKey])
            }
        }
    }

    @Test func roundTripExtractsEveryFileAndNamesTheDigest() throws {
        let f = try Fixture()
        let (path, digest) = try f.write()
        let verified = try EmbedderArtifactReader(path: path).extract(to: "\(f.home)/model", trustedKeys: [f.key.publicKey])
        #expect(verified.digest == digest)
        #expect(verified.manifest.id == "all-MiniLM-L6-v2")
        #expect(verified.manifest.dimension == 384)
        // The digest is the SHA-256 of embedder.json as extracted.
        let json = try Data(contentsOf: URL(fileURLWithPath: "\(f.home)/model/embedder.json"))
        #expect(SHA256.hex(json) == digest.hex)
        for (name, bytes) in f.files {
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(f.home)/model/\(name)"))) == bytes, "\(name)")
        }
        #expect(try InstalledEmbedder.check(directory: "\(f.home)/model", id: "all-MiniLM-L6-v2", digest: digest).files.count == 4)
        try InstalledEmbedder.verifyAll(directory: "\(f.home)/model", id: "all-MiniLM-L6-v2", digest: digest)
    }

    @Test func writingIsDeterministicAndTheDigestSurvivesAnotherKey() throws {
        let f = try Fixture()
        let a = try f.write("a.embedder.zip")
        let b = try f.write("b.embedder.zip")
        #expect(try Data(contentsOf: URL(fileURLWithPath: a.path)) == Data(contentsOf: URL(fileURLWithPath: b.path)))
        // Re-signing with a rotated key changes the zip but not the model digest corpora name.
        let c = try f.write("c.embedder.zip", key: try SecretKey.generate())
        #expect(c.digest == a.digest)
        #expect(try Data(contentsOf: URL(fileURLWithPath: c.path)) != Data(contentsOf: URL(fileURLWithPath: a.path)))
    }

    @Test func minisignVerifiesTheManifestSignature() throws {
        let f = try Fixture()
        let (path, digest) = try f.write()
        try EmbedderArtifactReader(path: path).extract(to: "\(f.home)/model", trustedKeys: [f.key.publicKey])
        let pub = try f.dir.write("k.pub", f.key.publicKey.fileText)
        let r = try ProcessRunner.run("/usr/bin/minisign", ["-V", "-m", "\(f.home)/model/embedder.json", "-p", pub], stdin: Data())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("embedder:all-MiniLM-L6-v2 dimension:384 digest:\(digest)"))
    }

    @Test(arguments: ZipImplementation.allCases)
    func tamperedWeightsAreRefusedAndNothingIsWritten(zip: ZipImplementation) throws {
        let f = try Fixture()
        var weights = f.files["model.safetensors"]!
        weights[1234] ^= 0xff
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(try f.craftedEntries(weights: weights)), zip: zip)
        guard case .hashMismatch(let member, _, _)? = error as? FormatError else {
            Issue.record("expected hashMismatch, got \(String(describing: error))")
            return
        }
        #expect(member == "model.safetensors")
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func longerWeightsAreStoppedAtTheSignedSize(zip: ZipImplementation) throws {
        let f = try Fixture()
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(try f.craftedEntries(weights: f.files["model.safetensors"]! + [0])), zip: zip)
        #expect(error as? FormatError == .sizeExceeded(member: "model.safetensors", limit: Int64(f.files["model.safetensors"]!.count)))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func anEditedManifestFailsItsSignature(zip: ZipImplementation) throws {
        let f = try Fixture()
        var entries = try f.craftedEntries()
        let text = String(decoding: entries[0].stored, as: UTF8.self).replacingOccurrences(of: "\"dimension\":384", with: "\"dimension\":385")
        entries[0] = CraftedZipEntry(name: "embedder.json", stored: Array(text.utf8))
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .signatureInvalid(what: "embedder.json"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func anArtifactSignedByAnotherKeyIsRefused(zip: ZipImplementation) throws {
        let f = try Fixture()
        let other = try SecretKey.generate()
        let (path, _) = try f.write(key: other)
        let (error, unchanged) = f.attemptExtract(path, zip: zip)
        #expect(error as? FormatError == .untrustedKey(keyID: other.keyID.description))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases, ["pack.sqlite", "model.safetensors-journal", "../vocab.txt"])
    func membersOffTheAllowlistAreRefused(zip: ZipImplementation, extra: String) throws {
        let f = try Fixture()
        var entries = try f.craftedEntries()
        entries.append(CraftedZipEntry(name: extra, stored: Array("x".utf8)))
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        let expected: FormatError = extra.contains("..") ? .unsafeMemberName(extra) : .memberNotAllowed(extra)
        #expect(error as? FormatError == expected)
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func aMissingSignatureIsItsOwnRefusal(zip: ZipImplementation) throws {
        let f = try Fixture()
        var entries = try f.craftedEntries()
        entries.remove(at: 1)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .signatureMissing(file: "embedder.json.minisig"))
        #expect(unchanged)
    }

    @Test func anInstalledFolderIsCheckedAgainstTheDigest() throws {
        let f = try Fixture()
        let (path, digest) = try f.write()
        let folder = "\(f.home)/model"
        try EmbedderArtifactReader(path: path).extract(to: folder, trustedKeys: [f.key.publicKey])
        let other = SHA256Digest(hex: String(repeating: "ab", count: 32))!
        do {
            try InstalledEmbedder.check(directory: folder, id: "all-MiniLM-L6-v2", digest: other)
            Issue.record("a folder holding another digest must be refused")
        } catch let e as FormatError {
            guard case .hashMismatch(_, let expected, let actual) = e else { Issue.record("expected hashMismatch, got \(e)"); return }
            #expect(expected == other.hex && actual == digest.hex)
        }
        // Truncated weights are caught by the cheap size check.
        let weights = "\(folder)/model.safetensors"
        #expect(truncate(weights, 1000) == 0)
        #expect(throws: FormatError.sizeMismatch(member: weights, expected: 300_000, actual: 1000)) {
            try InstalledEmbedder.check(directory: folder, id: "all-MiniLM-L6-v2", digest: digest)
        }
    }

    @Test func catalogsWithoutEmbeddersStillDecodeAndEncodeWithoutTheField() throws {
        let c = Catalog(id: "demo", title: "Demo", version: 3, issued: Date(timeIntervalSince1970: 1_700_000_000),
                        expires: Date(timeIntervalSince1970: 1_800_000_000), rootVersion: 1, corpora: [])
        let bytes = try c.canonicalBytes()
        #expect(!String(decoding: bytes, as: UTF8.self).contains("embedders"))
        #expect(try Catalog.decode(bytes).embedders == nil)

        let ref = BundleRef(path: "embedders/\(String(repeating: "c", count: 64)).embedder.zip", digest: .filled("c"), size: 10)
        var with = c
        with.embedders = [CatalogEmbedder(id: "all-MiniLM-L6-v2", dimension: 384, digest: .filled("d"), artifact: ref)]
        let decoded = try Catalog.decode(try with.canonicalBytes())
        #expect(decoded.embedder(id: "all-MiniLM-L6-v2", digest: .filled("d"))?.artifact == ref)

        with.embedders![0].artifact.path = "../escape.zip"
        #expect(throws: FormatError.malformed(what: "catalog", reason: "unsafe embedder reference for all-MiniLM-L6-v2")) {
            try Catalog.decode(try with.canonicalBytes())
        }
    }
}
