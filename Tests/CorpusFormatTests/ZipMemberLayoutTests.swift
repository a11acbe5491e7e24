import Foundation
import Testing
@testable import CorpusFormat
import CorpusTestSupport

/// The layout rules of the pre-check both zip readers share (`ZipMemberLayout`): what a bundle may
/// not hold besides its members, and what no archive may hold. Each runs through both readers.
@Suite struct ZipMemberLayoutTests {
    static let a = CraftedZipEntry(name: "a.md", stored: Array("alpha".utf8))
    static let b = CraftedZipEntry(name: "b.md", stored: Array("beta".utf8))

    /// Opens `bytes` with `limits` and reads every member, or throws the refusal.
    static func read(_ bytes: [UInt8], limits: ZipCentralDirectory.Limits, _ implementation: ZipImplementation) throws -> [[UInt8]] {
        let dir = TempDirectory("zip-layout")
        let path = try dir.write("a.zip", Data(bytes))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        let directory: ZipCentralDirectory
        do {
            directory = try ZipCentralDirectory.read(fd: fd, path: path, limits: limits)
        } catch {
            close(fd)
            throw error
        }
        let reader = try ZipReader(adopting: fd, path: path, directory: directory, implementation: implementation)
        return try directory.entries.indices.map { [UInt8](try reader.readSmall(at: $0, name: "m\($0)", limit: 1 << 20)) }
    }

    /// Member b's local header and data also sit inside member a's data, and b's central entry
    /// points there: two members sharing bytes (the overlap behind "better zip bombs"). Each local
    /// header agrees with its central entry, so only comparing the members' spans finds it.
    static func overlapping() -> [UInt8] {
        let localB = Array(ZipCrafting.build([b]).prefix(30 + 4 + 4))
        var bytes = ZipCrafting.build([CraftedZipEntry(name: "a.md", stored: localB), b])
        // b's central entry is the second one; its local header offset is at +42.
        let centralB = bytes.count - 22 - (46 + 4)
        bytes.replaceSubrange((centralB + 42)..<(centralB + 46), with: [34, 0, 0, 0])
        return bytes
    }

    @Test(arguments: ZipImplementation.allCases)
    func overlappingMembersAreRefused(zip: ZipImplementation) throws {
        for limits in [ZipCentralDirectory.Limits.bundle, .export] {
            #expect(throws: FormatError.archiveInconsistent(reason: "member b.md overlaps the member before it")) {
                try Self.read(Self.overlapping(), limits: limits, zip)
            }
        }
    }

    @Test(arguments: ZipImplementation.allCases)
    func aByteBetweenMembersIsRefusedInABundleOnly(zip: ZipImplementation) throws {
        var bytes = ZipCrafting.build([Self.a, Self.b])
        // Insert one byte before b's local header and move b's offset and the directory's along.
        let localB = 30 + 4 + 5
        bytes.insert(0, at: localB)
        let centralB = bytes.count - 22 - (46 + 4)
        bytes[centralB + 42] += 1
        bytes[bytes.count - 22 + 16] += 1
        #expect(throws: FormatError.archiveInconsistent(reason: "1 bytes before member b.md belong to no member")) {
            try Self.read(bytes, limits: .bundle, zip)
        }
        #expect(try Self.read(bytes, limits: .export, zip) == [Self.a.stored, Self.b.stored])
    }

    @Test(arguments: ZipImplementation.allCases)
    func aDataDescriptorIsRefusedInABundleOnly(zip: ZipImplementation) throws {
        var described = Self.b
        described.flags = 0x08
        let bytes = ZipCrafting.build([Self.a, described])
        #expect(throws: FormatError.unsupported(what: "member b.md", reason: "it has a data descriptor, which the publisher never writes")) {
            try Self.read(bytes, limits: .bundle, zip)
        }
        #expect(try Self.read(bytes, limits: .export, zip) == [Self.a.stored, Self.b.stored])
    }

    @Test(arguments: ZipImplementation.allCases, [UInt16(1), 12, 14, 93, 99])
    func aMethodOtherThanStoredOrDeflateIsRefused(zip: ZipImplementation, method: UInt16) throws {
        var other = Self.b
        other.method = method
        #expect(throws: FormatError.unsupported(what: "member b.md", reason: "it is compressed with method \(method); only stored (0) and deflate (8) are read")) {
            try Self.read(ZipCrafting.build([Self.a, other]), limits: .export, zip)
        }
    }

    @Test(arguments: ZipImplementation.allCases)
    func aStoredMemberWhoseSizesDifferIsRefused(zip: ZipImplementation) throws {
        var lying = Self.b
        lying.uncompressedSize = 3
        #expect(throws: FormatError.archiveInconsistent(reason: "stored member b.md has a compressed size of 4 and a size of 3")) {
            try Self.read(ZipCrafting.build([Self.a, lying]), limits: .export, zip)
        }
    }

    @Test(arguments: ZipImplementation.allCases)
    func zip64SizesAreReadFromTheExtraField(zip: ZipImplementation) throws {
        var big = Self.b
        big.zip64 = true
        #expect(try Self.read(ZipCrafting.build([Self.a, big]), limits: .bundle, zip) == [Self.a.stored, Self.b.stored])
    }
}
