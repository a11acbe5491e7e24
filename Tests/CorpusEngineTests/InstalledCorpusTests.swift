import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport

@Suite struct InstalledCorpusTests {
    static let texts = ["guide/lamp.md": ["The lighthouse keeper rotates the lamp.", "Fog horns sound at night."],
                        "guide/boats.md": ["Small boats shelter in the harbour."]]

    @Test func opensAValidVersion() throws {
        let home = TempDirectory("open")
        let folder = try PackFixture(id: "sea", version: "2.1", remote: "main", texts: Self.texts).install(home: home.path)
        let corpus = try InstalledCorpus(folder: folder, remote: "main", expectedID: "sea")
        #expect(corpus.name == "main/sea")
        #expect(corpus.version.description == "2.1")
        #expect(corpus.manifest.passages == 3 && corpus.vectors.rows == 3)
        try corpus.verifyIntegrity()
        #expect(try corpus.lexicalSearch(tokens: ["harbour"], limit: 5) == [0])
    }

    /// Opens `fixture` after `stage` tampered with it; expects `expected` and an untouched home.
    func expectRefusal(_ fixture: PackFixture, _ expected: EngineError, stage: (String) throws -> Void = { _ in }) async throws {
        let home = TempDirectory("refuse")
        let folder = try fixture.install(home: home.path)
        try stage(folder)
        let before = DirectorySnapshot(home.path)
        #expect(throws: expected) { _ = try InstalledCorpus(folder: folder, remote: "local", expectedID: fixture.id) }
        #expect(DirectorySnapshot(home.path) == before)
        // The library refuses it the same way, searching everything or just that corpus.
        let library = CorpusLibrary(home: home.path)
        for corpora in [[], [fixture.id]] {
            await #expect(throws: expected) { _ = try await library.search("lamp", options: SearchOptions(corpora: corpora)) }
        }
        #expect(DirectorySnapshot(home.path) == before)
    }

    @Test func packWithTriggerIsRefused() async throws {
        var f = PackFixture(id: "sea", texts: Self.texts)
        f.tamperSQL = ["CREATE TRIGGER evil AFTER INSERT ON documents BEGIN DELETE FROM passages; END"]
        try await expectRefusal(f, .packHasSchemaCode(corpus: "local/sea", kind: "trigger", name: "evil"))
    }

    @Test func packWithViewIsRefused() async throws {
        var f = PackFixture(id: "sea", texts: Self.texts)
        f.tamperSQL = ["CREATE VIEW passages_view AS SELECT text FROM passages"]
        try await expectRefusal(f, .packHasSchemaCode(corpus: "local/sea", kind: "view", name: "passages_view"))
    }

    @Test(arguments: ["-wal", "-journal", "-shm"])
    func packWithJournalBesideItIsRefused(_ suffix: String) async throws {
        try await expectRefusal(PackFixture(id: "sea", texts: Self.texts), .packHasJournal(corpus: "local/sea", file: "pack.sqlite" + suffix)) { folder in
            try Data("not a journal".utf8).write(to: URL(fileURLWithPath: "\(folder)/pack.sqlite\(suffix)"))
        }
    }

    @Test func metaFormatOtherThanOneIsRefused() async throws {
        var f = PackFixture(id: "sea", texts: Self.texts)
        f.tamperSQL = ["UPDATE meta SET value = '2' WHERE key = 'format'"]
        try await expectRefusal(f, .packInconsistent(corpus: "local/sea", reason: "meta format is \"2\", this build reads format 1"))
    }

    @Test func passageCountDisagreeingWithManifestIsRefused() async throws {
        var f = PackFixture(id: "sea", texts: Self.texts)
        f.tamperSQL = ["DELETE FROM passages WHERE id = 2"]
        try await expectRefusal(f, .packInconsistent(corpus: "local/sea", reason: "2 passages with ids 0...1, the manifest says 3 numbered from 0"))
    }

    @Test func vectorsDisagreeingWithManifestAreRefused() async throws {
        try await expectRefusal(PackFixture(id: "sea", texts: Self.texts),
                          .vectorsInconsistent(corpus: "local/sea", reason: "2 rows of 384 int8, the manifest says 3 of 384 int8")) { folder in
            let w = try VectorFileWriter(path: "\(folder)/vectors.bin", encoding: .int8, dimension: 384, rows: 2)
            for v in try HashingEmbedder().embed(["a", "b"]) { try w.append(v) }
            try w.finish()
        }
    }

    @Test func manifestForAnotherCorpusIsRefused() throws {
        let home = TempDirectory("refuse")
        let folder = try PackFixture(id: "sea", texts: Self.texts).install(home: home.path)
        #expect(throws: EngineError.packInconsistent(corpus: "local/lake", reason: "corpus.json names corpus sea, installed as lake")) {
            _ = try InstalledCorpus(folder: folder, remote: "local", expectedID: "lake")
        }
    }

    @Test func corruptPagesFailTheIntegrityCheck() throws {
        let home = TempDirectory("corrupt")
        let many = (0..<400).map { "Passage \($0) about lamps, boats, fog and the harbour wall number \($0 * 7)." }
        let folder = try PackFixture(id: "sea", texts: ["a.md": many]).install(home: home.path)
        let pack = "\(folder)/pack.sqlite"
        // Overwrite the last page (FTS5 segment data after VACUUM) with garbage.
        var data = try Data(contentsOf: URL(fileURLWithPath: pack))
        let pageSize = 4096
        for i in (data.count - pageSize)..<(data.count - 16) { data[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try data.write(to: URL(fileURLWithPath: pack))
        let corpus = try InstalledCorpus(folder: folder, remote: "local", expectedID: "sea")
        do {
            try corpus.verifyIntegrity()
            Issue.record("a corrupt pack passed the integrity check")
        } catch let EngineError.integrityCheckFailed(corpus, problems) {
            #expect(corpus == "local/sea")
            #expect(!problems.isEmpty && problems != ["ok"])
        }
    }
}

