import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
@testable import CorpusPublisher

/// A catalog entry with `"from"` publishes another app's corpus as `corpusd build --from` builds
/// it: the three formats side by side, the reader app's own "bundled" mark carried to the catalog
/// (the entry's `bundled` wins), the build cache keyed on the source's bytes, and `from` checked
/// with the rest of catalog.json before anything is written.
@Suite struct ImportPublishTests {
    final class Fixture: PublishFolder {
        init(entries: String) throws {
            try super.init("import-publish")
            var reader = ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 4)
            reader.bundled = true
            try FileManager.default.createDirectory(atPath: dir.url("catalog/apps"), withIntermediateDirectories: true)
            try reader.write(to: dir.url("catalog/apps/tides.corpus.zip"))
            try KnowledgeAppFixture(books: 2, passagesPerBook: 3).write(to: dir.url("catalog/apps/Corpus"))
            try BrowserExportFixture(pages: 3, paragraphsPerPage: 2).write(to: dir.url("catalog/apps/export.zip"))
            _ = try dir.write("catalog/catalog.json", #"{"id": "apps", "title": "Apps", "corpora": [\#(entries)]}"#)
        }

        func publish(_ progress: (PublishProgress) -> Void = { _ in }) throws -> PublishSummary {
            try TreePublisher.publish(catalogDirectory: catalog, output: tree, key: key, progress: progress)
        }
    }

    static let threeApps = """
        {"id": "tides", "version": "1", "source": "apps/tides.corpus.zip", "from": "corpuskit", "access": "free"},
        {"id": "shelf", "version": "1", "title": "Shelf", "source": "apps/Corpus", "from": "knowledgepress", "access": "free", "bundled": false},
        {"id": "reading", "version": "1", "source": "apps/export.zip", "from": "lumen", "access": "entitled"}
        """

    @Test func theThreeFormatsPublishSideBySideAndAreReusedUntilTheirSourceChanges() throws {
        let f = try Fixture(entries: Self.threeApps)
        var notes: [String] = []
        let first = try f.publish { if case let .importNote(corpus, note) = $0 { notes.append("\(corpus): \(note)") } }
        #expect(first.built == ["tides", "shelf", "reading"])
        let entries = Dictionary(uniqueKeysWithValues: first.catalog.corpora.map { ($0.id, $0) })
        #expect(entries["tides"]?.bundled == true && entries["tides"]?.title == "Tides of the North" && entries["tides"]?.passages == 8)
        #expect(entries["shelf"]?.bundled == false && entries["shelf"]?.title == "Shelf" && entries["shelf"]?.passages == 12)
        #expect(entries["reading"]?.bundled == false && entries["reading"]?.passages == 6)
        for e in first.catalog.corpora {
            let manifest = try BundleReader(path: "\(f.tree)/\(e.bundle.path)").verifyAll(trustedKeys: [f.key.publicKey])
            #expect(manifest.content == e.content && manifest.embedder.id == HashingEmbedder.identifier)
        }
        #expect(notes.contains("shelf: kept the ids of all 12 passages of 2 pack(s)"), "\(notes)")
        #expect(notes.contains { $0.hasPrefix("tides: de-overlapped the chunks: 6 began with the end of the chunk before") }, "\(notes)")

        let second = try f.publish()
        #expect(second.built.isEmpty && second.reused == ["tides", "shelf", "reading"])
        #expect(second.catalog.corpora.first { $0.id == "tides" }?.bundled == true, "the source's mark is kept in the build cache")

        // One more chunk in the reader app's corpus: that corpus is rebuilt (and, as new content, needs a version).
        var reader = ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 5)
        reader.bundled = true
        try reader.write(to: f.dir.url("catalog/apps/tides.corpus.zip"))
        let tree = DirectorySnapshot(f.tree, ignoring: { $0.hasPrefix(".") })
        #expect(throws: PublisherError.versionReused(corpus: "tides", version: "1", catalogVersion: 2)) { try f.publish() }
        #expect(DirectorySnapshot(f.tree, ignoring: { $0.hasPrefix(".") }) == tree)
        let catalog = try String(contentsOfFile: "\(f.catalog)/catalog.json", encoding: .utf8)
        _ = try f.dir.write("catalog/catalog.json", catalog.replacingOccurrences(of: #""id": "tides", "version": "1""#, with: #""id": "tides", "version": "2""#))
        let third = try f.publish()
        #expect(third.built == ["tides"] && third.reused == ["shelf", "reading"])
    }

    static let refusals: [(String, String)] = [
        (#"{"id": "x", "version": "1", "source": "apps/export.zip", "from": "pocket", "access": "free"}"#,
         #"corpus x has "from": "pocket"; it is one of corpuskit, knowledgepress, lumen"#),
        (#"{"id": "x", "version": "1", "bundle": "apps/export.zip", "from": "lumen", "access": "free"}"#,
         #"corpus x has "from", which imports a "source"; a prebuilt bundle is one already"#),
    ]

    @Test(arguments: refusals)
    func aWrongFromIsRefusedBeforeAnythingIsWritten(_ c: (String, String)) throws {
        let f = try Fixture(entries: c.0)
        let before = DirectorySnapshot(f.dir.path)
        #expect(throws: PublisherError.invalidCatalogSource(path: "\(f.catalog)/catalog.json", reason: c.1)) { try f.publish() }
        #expect(DirectorySnapshot(f.dir.path) == before)
    }

    /// A source of the wrong kind for its `from` (a folder where the export zip belongs) is
    /// refused before anything is built.
    @Test func aSourceOfTheWrongKindIsNotFound() throws {
        let f = try Fixture(entries: #"{"id": "x", "version": "1", "source": "apps/Corpus", "from": "lumen", "access": "free"}"#)
        let before = DirectorySnapshot(f.dir.path)
        #expect(throws: PublisherError.sourceNotFound(path: "\(f.catalog)/apps/Corpus")) { try f.publish() }
        #expect(DirectorySnapshot(f.dir.path) == before)
    }
}
