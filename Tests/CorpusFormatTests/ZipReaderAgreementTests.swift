import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Archives on which the zlib reader and libzip once disagreed (found by
/// `ZipReaderDifferentialTests`), kept as regressions: each is refused, the same way, by both.
@Suite struct ZipReaderAgreementTests {
    static func open(_ bytes: [UInt8], _ implementation: ZipImplementation) throws -> [UInt8] {
        let dir = TempDirectory("zip-agreement")
        let path = try dir.write("a.zip", Data(bytes))
        let file = try FileHandleReader(path: path)
        return try ZipReader(duplicating: file.descriptor, path: path, implementation: implementation).read("b.md", limit: 1 << 20)
    }

    /// libzip shows a NUL inside a name as a space, so it cannot read such a member under its real
    /// name; the zlib reader could. Every name with a NUL is refused before either reads it.
    @Test(arguments: ZipImplementation.allCases)
    func aNameWithANulByteIsRefused(zip: ZipImplementation) throws {
        var nul = CraftedZipEntry(name: "a.md", stored: Array("alpha".utf8))
        nul.name = Array("a".utf8) + [0] + Array(".md".utf8)
        let bytes = ZipCrafting.build([nul, CraftedZipEntry(name: "b.md", stored: Array("beta".utf8))])
        #expect(throws: FormatError.unsafeMemberName("a\0.md")) { try Self.open(bytes, zip) }
    }

    /// A local header with one size saturated (0xFFFFFFFF, so in the Zip64 extra field) and the
    /// other a plain 32-bit value: the plain value is the size (APPNOTE 4.5.3), and here it is not
    /// the central directory's. The zlib reader took both sizes from the extra field and missed it.
    @Test(arguments: ZipImplementation.allCases, [18, 22])
    func aZip64LocalHeaderWithOneSizeNotSaturatedIsCheckedByThatSize(zip: ZipImplementation, field: Int) throws {
        var entry = CraftedZipEntry(name: "b.md", stored: Array("beta, in Zip64 form".utf8))
        entry.zip64 = true
        var bytes = ZipCrafting.build([entry])
        #expect(try Self.open(bytes, zip) == entry.stored)
        // Offset 18 is the local compressed size, 22 the uncompressed one: now 12, the member is 19.
        bytes.replaceSubrange(field..<(field + 4), with: [12, 0, 0, 0])
        #expect(throws: FormatError.archiveInconsistent(reason: "member b.md has a local header whose CRC or sizes differ from the central directory")) {
            try Self.open(bytes, zip)
        }
    }

    /// A deflated member whose sizes in both headers are its real length ± 1, with the right CRC:
    /// the CRC cannot tell, so only the check of the length inflated against the central
    /// directory's refuses it (the zlib reader's `InflateMemberStream.finish`; libzip 1.7.3 has
    /// none, so `ZipEntryReader.read` makes it).
    @Test(arguments: ZipImplementation.allCases, [-1, 1])
    func aDeflatedMemberOfAnotherLengthThanDeclaredIsRefused(zip: ZipImplementation, off: Int) throws {
        let dir = TempDirectory("zip-agreement")
        let text = Array(String(repeating: "beta, deflated, with the right CRC; ", count: 40).utf8)
        var entry = CraftedZipEntry(name: "b.md", stored: try ZipCrafting.deflate(text, scratch: dir.path))
        entry.method = 8
        entry.crc = ZipCrafting.crc32(text)
        entry.uncompressedSize = UInt32(text.count)
        #expect(try Self.open(ZipCrafting.build([entry]), zip) == text)
        entry.uncompressedSize = UInt32(text.count + off)
        let refusal = FormatError.archiveInconsistent(reason: "read member b.md: \(text.count) bytes, the central directory says \(text.count + off)")
        #expect(throws: refusal) { _ = try Self.open(ZipCrafting.build([entry]), zip).count }
    }
}
