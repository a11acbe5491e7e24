import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `corpus_meta.json`'s `chapters` is optional and the chunks name their chapters, so a list of
/// another shape than objects with ids (plain strings, which the format's description leaves
/// open) is not a reason to refuse the corpus: plain strings are titles, used as the chapters when
/// the chunks name their chapters by them, otherwise set aside with a note, as is a `chapters`
/// that does not decode at all. Each corpus is a real zip built by `ReaderAppFixture`.
@Suite struct ReaderAppChapterShapeTests {
    /// Builds a 2-chapter corpus (chunks of chapters `ch1`, `ch2`) with `meta` as its
    /// `corpus_meta.json` and chunks renamed by `chapter`; returns the notes and `path|title` of
    /// each document of the built pack, in order.
    static func build(meta: String, chapter: (String) -> String = { $0 }) throws -> (notes: [String], documents: [String]) {
        let dir = TempDirectory("reader-chapters")
        var f = ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 3)
        for n in f.chunks.indices { f.chunks[n].chapter = chapter(f.chunks[n].chapter) }
        f.replaced["corpus_meta.json"] = Array(meta.utf8)
        try f.write(to: dir.url("tides.corpus.zip"))
        let key = try SecretKey.generate()
        let options = ImportOptions(format: .corpuskit, source: dir.url("tides.corpus.zip"), id: "tides", version: CorpusVersion("1")!)
        let summary = try CorpusBuilder.build(importing: options, key: key, output: dir.url("out/tides-1.corpus.zip"))
        let pack = try PackInspection(bundle: summary.output, key: key.publicKey)
        return (summary.imported?.notes ?? [], try pack.sqlite("SELECT path || '|' || title FROM documents ORDER BY id"))
    }

    static let chunksOwn = "the chapters are the ones the chunks name, in the order they first appear, titled by their ids"

    /// The chunks name their chapters by the strings the list holds: the list gives the order.
    @Test func plainTitlesTheChunksNameAreTheChaptersInTheListsOrder() throws {
        let titles = ["ch1": "The Ebb", "ch2": "The Flood"]
        let (notes, documents) = try Self.build(meta: #"{"title":"Tides","chapters":["The Flood","The Ebb"]}"#) { titles[$0]! }
        #expect(documents == ["The Flood|The Flood", "The Ebb|The Ebb"])
        #expect(!notes.contains { $0.contains("chapters") }, "\(notes)")
    }

    /// The chunks name their chapters by ids the titles are not: the titles cannot be matched, so
    /// the list is set aside and the note says why.
    @Test func plainTitlesTheChunksDoNotNameAreSetAsideWithANote() throws {
        let (notes, documents) = try Self.build(meta: #"{"title":"Tides","chapters":["The Ebb","The Flood"]}"#)
        #expect(documents == ["ch1|ch1", "ch2|ch2"])
        #expect(notes.first == "corpus_meta.json: chapters lists plain titles that cannot stand for the chapters (chunk 0 names chapter \"ch1\", which the list does not hold); \(Self.chunksOwn)")
    }

    /// Two chapters with one title cannot be told apart by it.
    @Test func aTitleListedTwiceIsSetAsideWithANote() throws {
        let (notes, documents) = try Self.build(meta: #"{"chapters":["ch1","ch2","ch1"]}"#)
        #expect(documents == ["ch1|ch1", "ch2|ch2"])
        #expect(notes.first == "corpus_meta.json: chapters lists plain titles that cannot stand for the chapters (\"ch1\" is listed twice); \(Self.chunksOwn)")
    }

    /// Shapes that are neither objects with ids nor titles: the field is not read, the corpus is.
    @Test(arguments: [
        (#"{"chapters":[true,false]}"#, "wrong type at chapters.0"),
        (#"{"chapters":{"ch1":"The Ebb"}}"#, "wrong type at chapters"),
        (#"{"chapters":[{"title":"The Ebb"}]}"#, "missing field chapters.0.id"),
        (#"{"chapters":[["ch1","The Ebb"]]}"#, "wrong type at chapters.0"),
    ])
    func aChaptersFieldThatDoesNotDecodeIsSetAsideWithANote(meta: String, reason: String) throws {
        let (notes, documents) = try Self.build(meta: meta)
        #expect(documents == ["ch1|ch1", "ch2|ch2"])
        #expect(notes.first == "corpus_meta.json: chapters was not read (\(reason)); \(Self.chunksOwn)")
    }
}
