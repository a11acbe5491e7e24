import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd build FILE.corpus.zip --from corpuskit` through the real binaries, on a generated
/// reader-app corpus: chapters become documents, overlapping chunks passages without the overlap
/// and with the chunks' ids, the importance weights document metadata; the arctic vectors are
/// not kept (no encoder of that model embeds queries here), all-MiniLM-L6-v2 ones are when its
/// model is given; the bundle installs and answers searches.
@Suite struct ImportReaderAppCLITests {
    static let arctic = "Snowflake/snowflake-arctic-embed-m-v1.5"

    @Test func tenThousandOverlappingChunksBecomeABundleThatInstallsAndAnswers() throws {
        let run = try ImportCLIRun()
        var fixture = ReaderAppFixture.generated(chapters: 100, chunksPerChapter: 100)
        fixture.bundled = true
        try fixture.write(to: run.work.url("tides.corpus.zip"))
        let built = try run.build(run.work.url("tides.corpus.zip"), from: "corpuskit", id: "tides")
        try #require(built.result.status == 0, "\(built.result.stderr)")
        #expect(built.object["passages"] as? Int == 10_000 && built.object["documents"] as? Int == 100, "\(built.result.stdout)")
        #expect(built.embedder["id"] as? String == "hash-uni-bi-384-v1" && built.embedder["digest"] == nil, "\(built.embedder)")
        #expect(built.imported["vectors"] as? String == "embedded" && built.imported["source_vectors"] as? String == Self.arctic)
        #expect(built.imported["bundled"] as? Bool == true)
        let notes = built.imported["notes"] as? [String] ?? []
        #expect(notes.contains("de-overlapped the chunks: 9900 began with the end of the chunk before, which was cut; 0 lay wholly inside it and were dropped"), "\(notes)")
        #expect(notes.contains { $0.hasPrefix("vectors: the source's \(Self.arctic) (768 dimensions) are not kept") }, "\(notes)")
        let manifest = try run.manifest(built.bundle)
        #expect(manifest.embedder == EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8"))
        #expect(manifest.title == fixture.title && manifest.description == fixture.source)

        let imported = try run.importBundle(built.bundle)
        try #require(imported.status == 0, "\(imported.stderr)")
        let hits = try run.search(ReaderAppFixture.marker(chapter: 42, chunk: 17), corpus: "tides")
        let words = fixture.chapterWords["ch43"]!
        #expect(hits.first?["passage"] as? String == "c42-17" && hits.first?["document"] as? String == "ch43", "\(hits.prefix(2))")
        // The chunk without the 15 words it shares with chunk 16.
        #expect(hits.first?["text"] as? String == words[(17 * 45 + 15)..<(17 * 45 + 60)].joined(separator: " "))

        // De-overlapped, a chapter's passages are its text once, in order.
        let pack = run.installedPack("tides")
        let chapter = try SQLiteShell.rows(pack, "SELECT text FROM passages WHERE document_id = 43 ORDER BY ordinal")
        #expect(chapter.joined(separator: " ") == words.joined(separator: " "))
        #expect(try SQLiteShell.rows(pack, "SELECT value FROM document_meta WHERE document_id = 43 AND key = 'importance'") == ["0.5"])
        #expect(try SQLiteShell.rows(pack, "SELECT value FROM meta WHERE key = 'passage_ids'") == ["source"])
        #expect(try SQLiteShell.rows(pack, "SELECT count(DISTINCT pid) FROM passages WHERE pid LIKE 'c%-%'") == ["10000"])
    }

    /// A variation of the format with all-MiniLM-L6-v2 vectors (384 columns), which are not what
    /// the model computes for the text, so kept and re-embedded rows differ.
    static func miniLMFixture() -> ReaderAppFixture {
        var f = ReaderAppFixture.generated(chapters: 3, chunksPerChapter: 5)
        f.model = "sentence-transformers/all-MiniLM-L6-v2"
        f.dimension = 384
        f.vectors = (0..<(15 * 384)).map { Float(($0 * 7919) % 201) - 100 }
        return f
    }

    @Test(.enabled(if: ImportCLIRun.modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func vectorsOfTheModelThatEmbedsQueriesAreKeptAndOthersAreEmbeddedAgain() throws {
        let run = try ImportCLIRun()
        let fixture = Self.miniLMFixture()
        try fixture.write(to: run.work.url("mini.corpus.zip"))
        let model = ["--embedder", "all-MiniLM-L6-v2", "--model", ImportCLIRun.modelFolder]

        let kept = try run.build(run.work.url("mini.corpus.zip"), from: "corpuskit", id: "mini", extra: model)
        try #require(kept.result.status == 0, "\(kept.result.stderr)")
        #expect(kept.imported["vectors"] as? String == "kept", "\(kept.imported)")
        let manifest = try run.manifest(kept.bundle)
        #expect(manifest.embedder.id == "all-MiniLM-L6-v2" && manifest.embedder.modelDigest != nil)
        let rows = try VectorRows(bundle: kept.bundle, key: run.pub)
        for (r, chunk) in [(0, 0), (7, 7), (14, 14)] {
            let source = Array(fixture.vectors![(chunk * 384)..<((chunk + 1) * 384)])
            let norm = source.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(rows.row(r) == Int8Quantizer.quantize(source.map { $0 / norm }).values, "row \(r)")
        }

        // Without the model, the same vectors cannot be searched with: embedded with the hashing embedder.
        let plain = try run.build(run.work.url("mini.corpus.zip"), from: "corpuskit", id: "plain")
        try #require(plain.result.status == 0, "\(plain.result.stderr)")
        #expect(plain.imported["vectors"] as? String == "embedded" && plain.embedder["id"] as? String == "hash-uni-bi-384-v1")
        #expect((plain.imported["notes"] as? [String] ?? []).contains { $0.contains("give --embedder all-MiniLM-L6-v2 --model DIR to keep them") })

        // Arctic vectors with the model given: embedded again with the model, which the manifest names.
        var arctic = ReaderAppFixture.generated(chapters: 3, chunksPerChapter: 5)
        arctic.dimension = 768
        try arctic.write(to: run.work.url("arctic.corpus.zip"))
        let redone = try run.build(run.work.url("arctic.corpus.zip"), from: "corpuskit", id: "arctic", extra: model)
        try #require(redone.result.status == 0, "\(redone.result.stderr)")
        #expect(redone.imported["vectors"] as? String == "embedded" && redone.embedder["id"] as? String == "all-MiniLM-L6-v2")
        #expect(redone.embedder["digest"] as? String == manifest.embedder.modelDigest?.hex)
        let again = try VectorRows(bundle: redone.bundle, key: run.pub)
        #expect(again.dimension == 384 && again.rows == 15)
    }
}

/// The int8 rows of a bundle's `vectors.bin` (docs/format.md, "Vector sidecar"), read by hand.
struct VectorRows {
    let dimension: Int
    let rows: Int
    let bytes: [UInt8]
    let work = TempDirectory("vector-rows")

    init(bundle: String, key: String) throws {
        _ = try BundleReader(path: bundle).extract(to: work.url("x"), trustedKeys: [PublicKey(contentsOf: key)])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: work.url("x/vectors.bin"))))
        func u(_ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        self.bytes = bytes
        dimension = u(16, 4)
        rows = u(24, 8)
    }

    func row(_ r: Int) -> [Int8] { bytes[(64 + r * dimension)..<(64 + (r + 1) * dimension)].map { Int8(bitPattern: $0) } }
}
