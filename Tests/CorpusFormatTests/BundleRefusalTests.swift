import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Every row of the "Zip and unpack" table of security-cases.md, plus signature refusals:
/// each stages a real hostile zip and checks the precise error and an unchanged home folder,
/// once through each zip reader (`ZipImplementation`: zlib, and libzip where it is built).
@Suite struct BundleRefusalTests {
    // MARK: Member names

    static let unsafeNames: [[UInt8]] = [
        Array("../x".utf8), Array("/abs".utf8), Array("a\\b".utf8), Array("pack.sqlite".utf8) + [0] + Array("x".utf8),
        Array("pack\u{01}.sqlite".utf8), Array("sub/../pack.sqlite".utf8), Array("..".utf8), [], Array("/pack.sqlite".utf8),
        Array("pack.sqlite".utf8) + [0x7f],
    ]

    @Test(arguments: ZipImplementation.allCases, unsafeNames)
    func unsafeMemberNameIsRefused(zip: ZipImplementation, name: [UInt8]) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries.append(CraftedZipEntry(rawName: name, stored: Array("evil".utf8)))
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .unsafeMemberName(String(decoding: name, as: UTF8.self)))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func nulInsideAnAllowedNameIsSeenDespiteLibzipRewritingIt(zip: ZipImplementation) throws {
        // libzip turns NUL into a space; the raw check must still see "corpus.json\0".
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[3].name = Array("vectors.bin".utf8) + [0]
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .unsafeMemberName("vectors.bin\0"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func symlinkMemberIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[3].externalAttributes = (0o120777 as UInt32) << 16
        entries[3].stored = Array("/etc/passwd".utf8)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .symlinkMember("vectors.bin"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases, ["pack.sqlite-wal", "pack.sqlite-journal", "pack.sqlite-shm", "README.txt", "docs/", "corpus.json.sig", "Pack.sqlite"])
    func memberNotOnTheAllowlistIsRefused(zip: ZipImplementation, name: String) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries.insert(CraftedZipEntry(name: name, stored: Array("x".utf8)), at: 3)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .memberNotAllowed(name))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func directoryEntryWithAnAllowedNameIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[2].externalAttributes = (0o040755 as UInt32) << 16
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .memberNotAllowed("pack.sqlite"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases, [BundleLayout.pack, BundleLayout.manifest])
    func duplicateMemberIsRefused(zip: ZipImplementation, name: String) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        let original = entries.first { String(decoding: $0.name, as: UTF8.self) == name }!
        entries.append(CraftedZipEntry(name: name, stored: original.stored + [1]))
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .duplicateMember(name))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases, [BundleLayout.manifest, BundleLayout.pack, BundleLayout.vectors])
    func missingMemberIsRefused(zip: ZipImplementation, name: String) throws {
        let f = try BundleFixture()
        let entries = try f.craftedEntries().filter { String(decoding: $0.name, as: UTF8.self) != name }
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .missingMember(name))
        #expect(unchanged)
    }

    // MARK: Header consistency

    @Test(arguments: ZipImplementation.allCases)
    func localHeaderNamingAnotherFileIsRefused(zip: ZipImplementation) throws {
        // The "master key" pattern: the central directory says one thing, the local header another.
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[2].localName = Array("pack.sqlitX".utf8)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .archiveInconsistent(reason: #"member 2 is named "pack.sqlitX" in its local header, "pack.sqlite" in the central directory"#))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func localHeaderWithAnotherCRCIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[3].localCRC = 0xDEAD_BEEF
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .archiveInconsistent(reason: "member vectors.bin has a local header whose CRC or sizes differ from the central directory"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func trailingGarbageIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(try f.craftedEntries(), trailing: Array("garbage".utf8)), zip: zip)
        #expect(error as? FormatError == .archiveInconsistent(reason: "7 bytes after the end of the archive"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func trailingGarbageAfterARealBundleIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let (bundle, _) = try f.writeBundle()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: bundle))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 100))
        try handle.close()
        let (error, unchanged) = f.attemptExtract(bundle, zip: zip)
        #expect(error as? FormatError == .archiveInconsistent(reason: "100 bytes after the end of the archive"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func truncatedBundleIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let (bundle, _) = try f.writeBundle()
        let data = try Data(contentsOf: URL(fileURLWithPath: bundle))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: bundle))
        let (error, unchanged) = f.attemptExtract(bundle, zip: zip)
        #expect(error as? FormatError == .archiveInconsistent(reason: "no end of central directory record"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func crcMismatchIsRefusedEvenWhenTheHashMatches(zip: ZipImplementation) throws {
        // Headers agree with each other and the manifest is right; only the CRC lies,
        // so only reading the member to its end (libzip's CRC check) can catch it.
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[3].crc = ZipCrafting.crc32(try f.vectorBytes) ^ 1
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .archiveInconsistent(reason: "read member vectors.bin: CRC mismatch"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func flippedByteInAStoredMemberIsAHashMismatch(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let pack = try f.packBytes
        var tampered = pack
        tampered[100] ^= 0x01
        var entries = try f.craftedEntries(pack: tampered, declared: [BundleLayout.pack: BundleFixture.info(pack),
                                                                    BundleLayout.vectors: BundleFixture.info(try f.vectorBytes)])
        entries[2].crc = ZipCrafting.crc32(tampered)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .hashMismatch(member: "pack.sqlite", expected: SHA256.hex(pack), actual: SHA256.hex(tampered)))
        #expect(unchanged)
    }

    // MARK: Sizes

    @Test(arguments: ZipImplementation.allCases)
    func memberLargerThanTheManifestSaysIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let vectors = try f.vectorBytes
        let bigger = vectors + [UInt8](repeating: 7, count: 4096)
        let entries = try f.craftedEntries(vectors: bigger, declared: [BundleLayout.pack: BundleFixture.info(try f.packBytes),
                                                                      BundleLayout.vectors: BundleFixture.info(vectors)])
        var written: Int64 = 0
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip) { p in
            if p.member == BundleLayout.vectors { written = max(written, p.bytesDone) }
        }
        #expect(error as? FormatError == .sizeExceeded(member: "vectors.bin", limit: Int64(vectors.count)))
        #expect(written <= Int64(vectors.count))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func memberSmallerThanTheManifestSaysIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let vectors = try f.vectorBytes
        let entries = try f.craftedEntries(vectors: Array(vectors.dropLast(64)),
                                           declared: [BundleLayout.pack: BundleFixture.info(try f.packBytes),
                                                      BundleLayout.vectors: BundleFixture.info(vectors)])
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .sizeMismatch(member: "vectors.bin", expected: Int64(vectors.count), actual: Int64(vectors.count - 64)))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func deflateBombWithLyingHeadersStopsAtTheDeclaredSize(zip: ZipImplementation) throws {
        // 16 MiB of zeros deflates to ~16 KiB; both headers and the manifest claim 4096 bytes.
        // Nothing but the reader's own limit stops the inflater, so writing must stop at 4096.
        let f = try BundleFixture()
        let declaredSize = 4096
        let bomb = [UInt8](repeating: 0, count: 16 << 20)
        let claimed = Array(bomb.prefix(declaredSize))
        var entries = try f.craftedEntries(declared: [BundleLayout.pack: BundleFixture.info(claimed),
                                                      BundleLayout.vectors: BundleFixture.info(try f.vectorBytes)])
        entries[2].stored = try ZipCrafting.deflate(bomb, scratch: f.dir.path)
        entries[2].method = 8
        entries[2].uncompressedSize = UInt32(declaredSize)
        entries[2].crc = ZipCrafting.crc32(claimed)
        #expect(entries[2].stored.count < 100_000)
        var written: Int64 = 0
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip) { p in
            if p.member == BundleLayout.pack { written = max(written, p.bytesDone) }
        }
        #expect(error as? FormatError == .sizeExceeded(member: "pack.sqlite", limit: Int64(declaredSize)))
        #expect(written == Int64(declaredSize))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func oversizedManifestIsRefusedBeforeParsing(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[0].stored = Array("{\"pad\":\"".utf8) + [UInt8](repeating: 0x61, count: Int(BundleReader.maxManifestBytes)) + Array("\"}".utf8)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .sizeExceeded(member: "corpus.json", limit: BundleReader.maxManifestBytes))
        #expect(unchanged)
    }

    // MARK: Signatures

    @Test(arguments: ZipImplementation.allCases)
    func bundleSignedByAnotherKeyIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let other = try SecretKey.generate()
        let (bundle, _) = try f.writeBundle(key: other)
        let (error, unchanged) = f.attemptExtract(bundle, zip: zip)
        #expect(error as? FormatError == .untrustedKey(keyID: other.keyID.description))
        #expect(unchanged)
        // And trusting that key makes the same bundle acceptable.
        #expect(try BundleReader(path: bundle, implementation: zip).verifyAll(trustedKeys: [f.key.publicKey, other.publicKey]).id == "sea-guide")
    }

    @Test(arguments: ZipImplementation.allCases)
    func tamperedManifestByteIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        let at = entries[0].stored.firstIndex(of: UInt8(ascii: "S"))!  // "Sea guide" -> "Sea guidf"… any byte will do
        entries[0].stored[at] = UInt8(ascii: "T")
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .signatureInvalid(what: "corpus.json"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func tamperedTrustedCommentIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        var text = String(decoding: entries[1].stored, as: UTF8.self)
        text = text.replacingOccurrences(of: "trusted comment: corpus:sea-guide", with: "trusted comment: corpus:sea-guidf")
        entries[1].stored = Array(text.utf8)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .signatureInvalid(what: "the trusted comment of corpus.json"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func missingSignatureMemberIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        let entries = try f.craftedEntries().filter { String(decoding: $0.name, as: UTF8.self) != BundleLayout.signature }
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .signatureMissing(file: "corpus.json.minisig"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func emptySignatureMemberIsRefused(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[1].stored = []
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries), zip: zip)
        #expect(error as? FormatError == .signatureMissing(file: "corpus.json.minisig"))
        #expect(unchanged)
    }

    @Test(arguments: ZipImplementation.allCases)
    func verifyAllRefusesWhatExtractRefuses(zip: ZipImplementation) throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        entries[3].crc = ZipCrafting.crc32(try f.vectorBytes) ^ 1
        let bundle = try f.writeCrafted(entries)
        let before = DirectorySnapshot(f.dir.path)
        #expect(throws: FormatError.archiveInconsistent(reason: "read member vectors.bin: CRC mismatch")) {
            try BundleReader(path: bundle, implementation: zip).verifyAll(trustedKeys: [f.key.publicKey])
        }
        #expect(DirectorySnapshot(f.dir.path) == before)
    }
}
