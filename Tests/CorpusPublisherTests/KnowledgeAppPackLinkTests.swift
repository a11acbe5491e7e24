import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// A knowledge-app folder whose manifest lists no packs is read pack by pack from its listing,
/// where a `.pack` that is a link leaving the folder is never followed. It is named, as a pack the
/// manifest lists is: in the note when other packs are read (here), in the refusal when it was the
/// only one (`ImportRefusalCLITests`, "the only pack a link leaving the folder").
@Suite struct KnowledgeAppPackLinkTests {
    @Test func aPackLinkedFromOutsideTheFolderIsSkippedByName() throws {
        let dir = TempDirectory("knowledge-link")
        var f = KnowledgeAppFixture(books: 2, passagesPerBook: 3)
        f.listsPacks = false
        f.linkedOutside = ["news.pack"]
        try f.write(to: dir.url("Corpus"))
        let key = try SecretKey.generate()
        let options = ImportOptions(format: .knowledgepress, source: dir.url("Corpus"), id: "shelf", version: CorpusVersion("1")!)
        let summary = try CorpusBuilder.build(importing: options, key: key, output: dir.url("out/shelf-1.corpus.zip"))
        #expect(summary.imported?.notes.first == "skipped news.pack: symbolic link leaving the source folder", "\(summary.imported?.notes ?? [])")
        let pack = try PackInspection(bundle: summary.output, key: key.publicKey)
        #expect(try pack.documentPaths() == ["gutenberg.pack#1000", "gutenberg.pack#1001"])
        #expect(try pack.matching("newsmark0").isEmpty)
    }
}
