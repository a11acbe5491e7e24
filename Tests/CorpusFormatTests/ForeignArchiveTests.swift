import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Another program's zip (`ForeignArchive`): every entry judged before any is read, members read
/// by name with a cap each and one for the whole archive.
@Suite struct ForeignArchiveTests {
    static func write(_ dir: TempDirectory, _ entries: [CraftedZipEntry]) throws -> String {
        try dir.write("export.zip", Data(ZipCrafting.build(entries)))
    }

    @Test func listsFilesAndReadsThemByName() throws {
        let dir = TempDirectory("foreign")
        var folder = CraftedZipEntry(name: "Corpus/", stored: [])
        folder.externalAttributes = (0o040755 as UInt32) << 16
        let path = try Self.write(dir, [folder, CraftedZipEntry(name: "Corpus/a.md", stored: Array("# A".utf8))])
        let archive = try ForeignArchive(path: path)
        #expect(archive.names == ["Corpus/a.md"] && archive.contains("Corpus/a.md") && !archive.contains("Corpus/"))
        #expect(try archive.read("Corpus/a.md", limit: 3) == Array("# A".utf8))
        #expect(throws: FormatError.sizeExceeded(member: "Corpus/a.md", limit: 2)) { try archive.read("Corpus/a.md", limit: 2) }
    }

    /// Members add up: past the archive's total the read is refused whatever each member's cap.
    @Test func whatIsReadFromOneArchiveIsCapped() throws {
        let dir = TempDirectory("foreign")
        let path = try Self.write(dir, (0..<3).map { CraftedZipEntry(name: "p\($0).md", stored: [UInt8](repeating: 0x61, count: 40)) })
        let archive = try ForeignArchive(path: path, totalLimit: 100)
        #expect(try archive.read("p0.md", limit: 64).count == 40)
        #expect(try archive.read("p1.md", limit: 64).count == 40)
        #expect(throws: FormatError.sizeExceeded(member: "*", limit: 100)) { try archive.read("p2.md", limit: 64) }
    }

    static let refused: [(CraftedZipEntry, FormatError)] = [
        (CraftedZipEntry(name: "../x.md", stored: []), .unsafeMemberName("../x.md")),
        (CraftedZipEntry(name: "/x.md", stored: []), .unsafeMemberName("/x.md")),
        (CraftedZipEntry(name: "a//x.md", stored: []), .unsafeMemberName("a//x.md")),
        (CraftedZipEntry(name: "./x.md", stored: []), .unsafeMemberName("./x.md")),
        (CraftedZipEntry(name: "a\\x.md", stored: []), .unsafeMemberName("a\\x.md")),
        ({ var e = CraftedZipEntry(name: "l.md", stored: Array("/etc".utf8)); e.externalAttributes = (0o120777 as UInt32) << 16; return e }(),
         .symlinkMember("l.md")),
        ({ var e = CraftedZipEntry(name: "fifo", stored: []); e.externalAttributes = (0o010644 as UInt32) << 16; return e }(),
         .memberNotAllowed("fifo")),
    ]

    @Test(arguments: ZipImplementation.allCases, refused.indices)
    func anEntryThatCouldEscapeRefusesTheWholeArchive(zip: ZipImplementation, _ n: Int) throws {
        let dir = TempDirectory("foreign")
        let path = try Self.write(dir, [CraftedZipEntry(name: "ok.md", stored: Array("ok".utf8)), Self.refused[n].0])
        #expect(throws: Self.refused[n].1) { try ForeignArchive(path: path, implementation: zip) }
    }

    @Test(arguments: ZipImplementation.allCases)
    func aNameTwiceRefusesTheArchive(zip: ZipImplementation) throws {
        let dir = TempDirectory("foreign")
        let path = try Self.write(dir, [CraftedZipEntry(name: "a.md", stored: Array("1".utf8)), CraftedZipEntry(name: "a.md", stored: Array("2".utf8))])
        #expect(throws: FormatError.duplicateMember("a.md")) { try ForeignArchive(path: path, implementation: zip) }
    }
}
