import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `ConfinedDirectory`: files beneath a folder are opened without following any link on the way.
@Suite struct ConfinedDirectoryTests {
    static func fixture() throws -> TempDirectory {
        let dir = TempDirectory("confined")
        try dir.write("root/a.txt", "inside")
        try dir.write("root/sub/b.txt", "deeper")
        try dir.write("outside/secret.txt", "secret")
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: dir.url("root/link.txt"), withDestinationPath: "a.txt")
        try fm.createSymbolicLink(atPath: dir.url("root/out.txt"), withDestinationPath: dir.url("outside/secret.txt"))
        try fm.createSymbolicLink(atPath: dir.url("root/outdir"), withDestinationPath: "../outside")
        try fm.createSymbolicLink(atPath: dir.url("root/subdir"), withDestinationPath: "sub")
        try fm.createSymbolicLink(atPath: dir.url("root/dangling"), withDestinationPath: "nowhere")
        return dir
    }

    @Test(arguments: [
        ("a.txt", nil), ("sub/b.txt", nil),
        ("link.txt", ConfinedDirectory.OpenError.symbolicLink), ("out.txt", .symbolicLink),
        ("outdir/secret.txt", .symbolicLink), ("subdir/b.txt", .symbolicLink),
        ("missing.txt", .missing), ("sub", .notRegularFile), ("a.txt/x", .notRegularFile), ("../outside/secret.txt", .missing),
    ] as [(String, ConfinedDirectory.OpenError?)])
    func opensOnlyWhatIsReallyBeneath(path: String, refusal: ConfinedDirectory.OpenError?) throws {
        let dir = try Self.fixture()
        let root = try ConfinedDirectory(path: dir.url("root"))
        do {
            let (reader, size) = try root.openFile(path)
            #expect(refusal == nil, "\(path) opened")
            #expect(try reader.readAll(limit: 100).map { String(decoding: $0, as: UTF8.self) } == (path == "a.txt" ? "inside" : "deeper"))
            #expect(size == 6)
        } catch {
            #expect(error as? ConfinedDirectory.OpenError == refusal, "\(path): \(error)")
        }
    }

    @Test(arguments: [
        ("link.txt", ConfinedDirectory.LinkTarget.inside("a.txt")), ("subdir", .inside("sub")), ("out.txt", .outside),
        ("outdir", .outside), ("dangling", .broken),
    ])
    func resolvesWhereALinkLeads(link: String, target: ConfinedDirectory.LinkTarget) throws {
        let dir = try Self.fixture()
        #expect(try ConfinedDirectory(path: dir.url("root")).resolve(link: link) == target)
    }

    @Test func listsEntriesWithoutFollowingLinks() throws {
        let dir = try Self.fixture()
        let entries = try ConfinedDirectory(path: dir.url("root")).entries("")
        let kinds = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.kind) })
        #expect(kinds == ["a.txt": .file(size: 6), "sub": .directory, "link.txt": .symbolicLink, "out.txt": .symbolicLink,
                          "outdir": .symbolicLink, "subdir": .symbolicLink, "dangling": .symbolicLink])
        #expect(throws: ConfinedDirectory.OpenError.symbolicLink) { try ConfinedDirectory(path: dir.url("root")).entries("outdir") }
    }

    @Test func readAllStopsAtTheLimit() throws {
        let dir = try Self.fixture()
        let (reader, _) = try ConfinedDirectory(path: dir.url("root")).openFile("a.txt")
        #expect(try reader.readAll(limit: 5) == nil)
    }
}
