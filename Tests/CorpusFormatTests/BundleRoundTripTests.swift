import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

@Suite struct BundleRoundTripTests {
    @Test func writeThenExtractGivesTheSameFilesAndManifest() throws {
        let f = try BundleFixture()
        let (bundle, written) = try f.writeBundle()
        #expect(written.members[BundleLayout.pack] == BundleFixture.info(try f.packBytes))
        #expect(written.members[BundleLayout.vectors] == BundleFixture.info(try f.vectorBytes))

        let reader = try BundleReader(path: bundle)
        let verified = try reader.manifest(trustedKeys: [f.key.publicKey])
        let (manifest, bytes, signature) = (verified.manifest, verified.bytes, verified.signature)
        #expect(manifest == written)
        #expect(bytes == (try written.canonicalBytes()))
        #expect(signature.trustedComment == written.trustedComment)
        #expect(signature.algorithm == .prehashed)

        var seen: [String: Int64] = [:]
        let extracted = try reader.extract(to: "\(f.home)/sea", trustedKeys: [f.key.publicKey]) { seen[$0.member] = $0.bytesDone }
        #expect(extracted == written)
        #expect(seen == [BundleLayout.pack: Int64(try f.packBytes.count), BundleLayout.vectors: Int64(try f.vectorBytes.count)])
        let out = "\(f.home)/sea"
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out)/pack.sqlite")) == Data(try f.packBytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out)/vectors.bin")) == Data(try f.vectorBytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out)/corpus.json")) == bytes)
        #expect(try Signature(contentsOf: "\(out)/corpus.json.minisig") == signature)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out)) == Set(BundleLayout.allMembers))
        // No staging folder is left beside the result.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: f.home)) == ["other", "sea"])
        // The extracted signature verifies the extracted manifest on its own, as `minisign -V` would.
        try f.key.publicKey.verify(try Signature(contentsOf: "\(out)/corpus.json.minisig"), fileAt: "\(out)/corpus.json")
    }

    @Test func verifyAllChecksWithoutWriting() throws {
        let f = try BundleFixture()
        let (bundle, written) = try f.writeBundle()
        let before = DirectorySnapshot(f.dir.path)
        #expect(try BundleReader(path: bundle).verifyAll(trustedKeys: [f.key.publicKey]) == written)
        #expect(DirectorySnapshot(f.dir.path) == before)
    }

    @Test func twoWritesAreByteIdentical() throws {
        let f = try BundleFixture()
        let (a, _) = try f.writeBundle("a.corpus.zip")
        // Different mtimes and modes of the inputs must not leak into the archive.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 2_000_000_000), .posixPermissions: 0o600],
                                              ofItemAtPath: f.packPath)
        let (b, _) = try f.writeBundle("b.corpus.zip")
        let bytesA = try Data(contentsOf: URL(fileURLWithPath: a)), bytesB = try Data(contentsOf: URL(fileURLWithPath: b))
        #expect(bytesA == bytesB)
        #expect(!bytesA.isEmpty)
    }

    @Test func writtenBundleHasTheDocumentedLayout() throws {
        let f = try BundleFixture()
        let (bundle, _) = try f.writeBundle()
        let listing = try ProcessRunner.run("zipinfo", ["-v", bundle])
        #expect(listing.status == 0)
        // Order, methods, times and modes as docs/format.md says.
        let names = try ProcessRunner.run("zipinfo", ["-1", bundle]).stdout.split(separator: "\n").map(String.init)
        #expect(names == BundleLayout.allMembers)
        let short = try ProcessRunner.run("zipinfo", ["-T", "-s", bundle]).stdout
        // defX: deflate level 9 (the manifest); defF: level 1 or 2 (the pack, BundleWriter.packDeflateLevel).
        let expected = ["corpus.json": "defX", "corpus.json.minisig": "stor", "pack.sqlite": "defF", "vectors.bin": "stor"]
        var checked = 0
        for line in short.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let name = fields.last, let method = expected[String(name)] else { continue }
            #expect(fields[0] == "-rw-r--r--", "\(line)")
            #expect(fields[2] == "unx", "\(line)")
            #expect(fields[5] == Substring(method), "\(line)")
            #expect(fields[6] == "19800101.000000", "\(line)")
            checked += 1
        }
        #expect(checked == 4)
        #expect(listing.stdout.components(separatedBy: "length of extra field:                          0 bytes").count == 5)
        // The system unzip agrees the archive is sound (CRCs included).
        #expect(try ProcessRunner.run("unzip", ["-tq", bundle]).status == 0)
    }

    @Test func extractRefusesAnExistingTarget() throws {
        let f = try BundleFixture()
        let (bundle, _) = try f.writeBundle()
        let (error, unchanged) = f.attemptExtract(bundle, target: "other")
        #expect(error as? FormatError == .io(operation: "extract into", path: "\(f.home)/other", errno: EEXIST))
        #expect(unchanged)
    }

    @Test func writerReplacesTheOutputAtomicallyAndLeavesNoTemporaryFile() throws {
        let f = try BundleFixture()
        let out = f.dir.url("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: "\(out)/x.corpus.zip"))
        try BundleWriter.write(manifest: f.manifest, packPath: f.packPath, vectorsPath: f.vectorsPath, key: f.key, to: "\(out)/x.corpus.zip")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["x.corpus.zip"])
        #expect(try BundleReader(path: "\(out)/x.corpus.zip").verifyAll(trustedKeys: [f.key.publicKey]).id == "sea-guide")
    }
}
