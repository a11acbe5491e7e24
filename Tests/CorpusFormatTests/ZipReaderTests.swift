import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The one zip reader (`ZipReader`) as the EPUB ingest uses it: opened from an open file,
/// members by plain name only, every read capped; through each implementation.
@Suite struct ZipReaderTests {
    static func write(_ dir: TempDirectory, _ members: [(String, [UInt8])]) throws -> String {
        try dir.write("a.zip", Data(ZipCrafting.build(members.map { CraftedZipEntry(name: $0.0, stored: $0.1) })))
    }

    @Test(arguments: ZipImplementation.allCases)
    func readsAMemberFromAnOpenFileTheCallerKeeps(zip implementation: ZipImplementation) throws {
        let dir = TempDirectory("zip")
        let path = try Self.write(dir, [("mimetype", Array("application/epub+zip".utf8)), ("OEBPS/a.xhtml", Array("<p>a</p>".utf8))])
        let file = try FileHandleReader(path: path)
        let zip = try ZipReader(duplicating: file.descriptor, path: path, implementation: implementation)
        #expect(try zip.read("OEBPS/a.xhtml", limit: 8) == Array("<p>a</p>".utf8))
        #expect(try zip.read("mimetype", limit: 100) == Array("application/epub+zip".utf8))
        // The caller's descriptor is still its own.
        #expect(fcntl(file.descriptor, F_GETFD) >= 0)
    }

    @Test(arguments: ZipImplementation.allCases)
    func refusesWhatIsMissingOrOverItsCap(zip implementation: ZipImplementation) throws {
        let dir = TempDirectory("zip")
        let path = try Self.write(dir, [("big", [UInt8](repeating: 7, count: 1000))])
        let file = try FileHandleReader(path: path)
        let zip = try ZipReader(duplicating: file.descriptor, path: path, implementation: implementation)
        #expect(throws: FormatError.missingMember("small")) { try zip.read("small", limit: 10) }
        #expect(throws: FormatError.sizeExceeded(member: "big", limit: 999)) { try zip.read("big", limit: 999) }
        #expect(try zip.read("big", limit: 1000).count == 1000)
    }

    @Test(arguments: ZipImplementation.allCases)
    func aFileThatIsNotAZipIsRefusedOnOpening(zip implementation: ZipImplementation) throws {
        let dir = TempDirectory("zip")
        let path = try dir.write("a.epub", "this is not a zip")
        let file = try FileHandleReader(path: path)
        #expect(throws: FormatError.archiveInconsistent(reason: "too short to be a zip file")) {
            try ZipReader(duplicating: file.descriptor, path: path, implementation: implementation)
        }
    }
}
