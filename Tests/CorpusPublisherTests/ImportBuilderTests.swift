import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
@testable import CorpusPublisher

/// `CorpusBuilder.build(importing:)` as a library call: the same source and key give the same
/// bytes, the content digest is the one format.md defines (over the pack's passage ids, what a
/// client that applied a delta recomputes from its pack), and a refusal leaves no folder behind.
@Suite struct ImportBuilderTests {
    static func sources(_ dir: TempDirectory) throws -> [(ImportFormat, String)] {
        try ReaderAppFixture.generated(chapters: 3, chunksPerChapter: 4).write(to: dir.url("tides.corpus.zip"))
        try KnowledgeAppFixture(books: 2, passagesPerBook: 5).write(to: dir.url("Corpus"))
        try BrowserExportFixture(pages: 4, paragraphsPerPage: 2).write(to: dir.url("export.zip"))
        return [(.corpuskit, dir.url("tides.corpus.zip")), (.knowledgepress, dir.url("Corpus")), (.lumen, dir.url("export.zip"))]
    }

    @Test func theSameSourceAndKeyGiveTheSameBytesAndTheContentDigestIsOverThePacksIDs() throws {
        let dir = TempDirectory("import-build")
        let key = try SecretKey.generate()
        for (format, source) in try Self.sources(dir) {
            let options = ImportOptions(format: format, source: source, id: "x-\(format.rawValue)", version: CorpusVersion("1")!)
            let first = try CorpusBuilder.build(importing: options, key: key, output: dir.url("a/\(format.rawValue).corpus.zip"))
            let second = try CorpusBuilder.build(importing: options, key: key, output: dir.url("b/\(format.rawValue).corpus.zip"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: first.output)) == Data(contentsOf: URL(fileURLWithPath: second.output)), "\(format)")

            let unpacked = dir.url("unpacked-\(format.rawValue)")
            let manifest = try BundleReader(path: first.output).extract(to: unpacked, trustedKeys: [key.publicKey])
            let db = try Database(path: "\(unpacked)/pack.sqlite", mode: .readOnly)
            var pids: [String] = []
            let s = try db.prepare("SELECT pid FROM passages ORDER BY id")
            while try s.step() { pids.append(s.text(0)) }
            #expect(manifest.content == ContentDigest.make(passageIDs: pids, embedderID: HashingEmbedder.identifier), "\(format)")
            try InstalledCorpus.checkExtracted(folder: unpacked, remote: "local")
        }
    }

    /// A refused source leaves nothing: no bundle, no work folder, and no output folder the call made.
    @Test func aRefusalLeavesNoFolderBehind() throws {
        let dir = TempDirectory("import-build")
        var f = ReaderAppFixture.generated(chapters: 1, chunksPerChapter: 2)
        f.omitted = ["chunks.json"]
        try f.write(to: dir.url("bad.corpus.zip"))
        let before = DirectorySnapshot(dir.path)
        let options = ImportOptions(format: .corpuskit, source: dir.url("bad.corpus.zip"), id: "bad", version: CorpusVersion("1")!)
        #expect(throws: PublisherError.importSource(path: dir.url("bad.corpus.zip"), format: .corpuskit, reason: "chunks.json is missing")) {
            try CorpusBuilder.build(importing: options, key: try SecretKey.generate(), output: dir.url("new/bad.corpus.zip"))
        }
        #expect(DirectorySnapshot(dir.path) == before)
    }
}
