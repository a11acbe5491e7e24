import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
@testable import CorpusPublisher

@Suite struct CorpusBuilderTests {
    static func sampleSource(_ dir: TempDirectory) throws {
        try dir.write("src/guide/install.md", "# Install guide\n\n## Linux\n\nUse the package manager to install the tools.\n\n## macOS\n\nUse the installer.")
        try dir.write("src/notes.txt", "Café notes\n\nThe café in Zürich serves crème brûlée.\n\n東京タワーは高い。京都の寺は古い。")
        try dir.write("src/page.html", "<title>Page</title><h2>Tides</h2><p>Spring tides &amp; neap tides.</p><script>x()</script>")
    }

    static func options(_ dir: TempDirectory) -> BuildOptions {
        BuildOptions(source: dir.url("src"), id: "sample", version: CorpusVersion("1.2")!, title: "Sample",
                     description: "A sample", language: "en", license: "CC0-1.0")
    }

    @Test func packHasExactlyTheDocumentedSchema() throws {
        let dir = TempDirectory("build-schema")
        try Self.sampleSource(dir)
        let key = try SecretKey.generate()
        let summary = try CorpusBuilder.build(Self.options(dir), key: key, output: dir.url("out/sample.corpus.zip"))
        #expect(summary.documents == 3)

        let unpacked = dir.url("unpacked")
        try BundleReader(path: summary.output).extract(to: unpacked, trustedKeys: [key.publicKey])
        let db = try Database(path: "\(unpacked)/pack.sqlite", mode: .readOnly)
        let rows = try db.prepare("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY name")
        var objects: [String] = []
        while try rows.step() { objects.append("\(rows.text(0)) \(rows.text(1))") }
        #expect(objects == ["table documents", "table meta", "table passages", "table passages_fts", "table passages_fts_config",
                            "table passages_fts_data", "table passages_fts_docsize", "table passages_fts_idx"])
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type IN ('trigger', 'view')") == 0)
        #expect(try db.scalarText("PRAGMA journal_mode") == "delete")
        let documented = try db.scalarText("SELECT sql FROM sqlite_schema WHERE name = 'passages_fts'")
        #expect(documented?.contains("tokenize='porter unicode61 remove_diacritics 2'") == true)
        #expect(try db.scalarText("SELECT group_concat(key || '=' || value, ',') FROM meta") ==
                "corpus_id=sample,corpus_version=1.2,documents=3,embedder_dimension=384,embedder_id=hash-uni-bi-384-v1,format=1,passages=\(summary.passages)")
        // Passage ids are 0-based rows, equal to vector rows; the manifest's content digest covers them.
        #expect(try db.scalarInt("SELECT min(id) FROM passages") == 0)
        #expect(try db.scalarInt("SELECT max(id) FROM passages") == Int64(summary.passages - 1))
        var pids: [String] = []
        let p = try db.prepare("SELECT pid FROM passages")
        while try p.step() { pids.append(p.text(0)) }
        #expect(summary.manifest.content == ContentDigest.make(passageIDs: pids, embedderID: HashingEmbedder.identifier))
        let vectors = try Data(contentsOf: URL(fileURLWithPath: "\(unpacked)/vectors.bin"))
        let header = try vectors.withUnsafeBytes { try VectorFileHeader.decode($0, fileSize: vectors.count) }
        #expect(header.rows == summary.passages && header.dimension == 384 && header.encoding == .int8)
    }

    @Test func nonASCIITextRoundTripsAndIsSearchable() throws {
        let dir = TempDirectory("build-unicode")
        try Self.sampleSource(dir)
        let key = try SecretKey.generate()
        let summary = try CorpusBuilder.build(Self.options(dir), key: key, output: dir.url("sample.corpus.zip"))
        let unpacked = dir.url("unpacked")
        try BundleReader(path: summary.output).extract(to: unpacked, trustedKeys: [key.publicKey])
        // The pack ships without its index (the default): indexed here as a client does at install.
        #expect(summary.manifest.index == .install)
        try PackIndexer.build(packAt: "\(unpacked)/pack.sqlite")
        let db = try Database(path: "\(unpacked)/pack.sqlite", mode: .readOnly)
        #expect(try db.scalarText("SELECT title FROM documents WHERE path = 'notes.txt'") == "Café notes")
        func match(_ q: String) throws -> [String] {
            let s = try db.prepare("SELECT p.text FROM passages_fts f JOIN passages p ON p.id = f.rowid WHERE passages_fts MATCH ? ORDER BY rank")
            try s.bind(1, q)
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
        // remove_diacritics folds accents both ways; porter stems "installing" to "install".
        #expect(try match("creme brulee") == ["The café in Zürich serves crème brûlée.\n\n東京タワーは高い。京都の寺は古い。"])
        #expect(try match("zurich").count == 1)
        #expect(try match("text:installing").count == 2)  // "install" and "installer"
        #expect(try match("\"東京タワーは高い\"").count == 1)
        #expect(try match("section:linux").first == "Use the package manager to install the tools.")
        #expect(try match("script").isEmpty)
    }

    @Test func sameInputsAndKeyGiveByteIdenticalBundles() throws {
        let dir = TempDirectory("build-determinism")
        try Self.sampleSource(dir)
        let key = try SecretKey.generate()
        let a = try CorpusBuilder.build(Self.options(dir), key: key, output: dir.url("a/sample.corpus.zip"))
        let b = try CorpusBuilder.build(Self.options(dir), key: key, output: dir.url("b/sample.corpus.zip"))
        let bytesA = try Data(contentsOf: URL(fileURLWithPath: a.output))
        let bytesB = try Data(contentsOf: URL(fileURLWithPath: b.output))
        #expect(bytesA == bytesB)
        // No build leftovers beside the outputs.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url("a")) == ["sample.corpus.zip"])
    }

    /// The manifest's rows and content digests are the ones a client computes from the pack, over
    /// files enough for several ingest groups (documents of one group after passages of the one
    /// before): a guard for any build that computes them other than by reading the pack back.
    @Test(arguments: [false, true]) func rowsDigestIsThePacksOwn(indexAtInstall: Bool) throws {
        let dir = TempDirectory("build-rows-digest")
        try Self.sampleSource(dir)
        for n in 0..<(3 * CorpusBuilder.filesPerGroup) {
            try dir.write(String(format: "src/many/doc-%03d.md", n), "# Doc \(n)\n\n## One\n\nFirst \(n).\n\n## Two\n\nSecond \(n), café.")
        }
        try dir.write("src/many/skip.bin", Data([0, 1]))
        var options = Self.options(dir)
        options.indexAtInstall = indexAtInstall
        let key = try SecretKey.generate()
        let summary = try CorpusBuilder.build(options, key: key, output: dir.url("out/sample.corpus.zip"))
        let unpacked = dir.url("unpacked")
        try BundleReader(path: summary.output).extract(to: unpacked, trustedKeys: [key.publicKey])
        let digests = try PackDigest.compute(packAt: "\(unpacked)/pack.sqlite", embedderID: HashingEmbedder.identifier)
        #expect(summary.manifest.rowsDigest == digests.rows)
        #expect(summary.manifest.content == digests.content)
        #expect(digests.documents == 3 + 3 * CorpusBuilder.filesPerGroup && digests.passages == summary.passages)
    }

    /// The same for a build laid out after a previous version (rows kept, a removed file's rows
    /// taken by new passages, documents renumbered): the builder digests the rows it hands the
    /// pack, in the pack's order, without reading the pack back.
    @Test func rowsDigestIsThePacksOwnInAPreviousLayout() throws {
        let dir = TempDirectory("build-rows-digest-layout")
        try Self.sampleSource(dir)
        for n in 0..<(2 * CorpusBuilder.filesPerGroup) {
            try dir.write(String(format: "src/many/doc-%03d.md", n), "# Doc \(n)\n\n## One\n\nFirst \(n).\n\n## Two\n\nSecond \(n), café.")
        }
        var options = Self.options(dir)
        options.indexAtInstall = false
        let key = try SecretKey.generate()
        let first = try CorpusBuilder.build(options, key: key, output: dir.url("v1/sample.corpus.zip"))
        try BundleReader(path: first.output).extract(to: dir.url("v1x"), trustedKeys: [key.publicKey])
        let layout = try RowLayout.read(packAt: dir.url("v1x/pack.sqlite"))

        try FileManager.default.removeItem(atPath: dir.url("src/many/doc-000.md"))
        try dir.write("src/many/doc-001.md", "# Doc 1\n\n## One\n\nChanged.")
        try dir.write("src/many/a-new.md", "# New\n\nNew text, one.\n\n## More\n\nNew text, two.")
        options.version = CorpusVersion("1.3")!
        let second = try CorpusBuilder.build(options, key: key, output: dir.url("v2/sample.corpus.zip"), layout: layout)
        try BundleReader(path: second.output).extract(to: dir.url("v2x"), trustedKeys: [key.publicKey])
        let digests = try PackDigest.compute(packAt: dir.url("v2x/pack.sqlite"), embedderID: HashingEmbedder.identifier)
        #expect(second.manifest.rowsDigest == digests.rows)
        #expect(second.manifest.content == digests.content)
        #expect(second.manifest.rowsDigest != first.manifest.rowsDigest)
    }

    /// A first build embeds while it ingests (the ingest thread waits on the pack thread
    /// otherwise), in the passages' order: the vectors are the ones a build that embedded after
    /// ingest wrote.
    @Test func firstBuildEmbedsWhileIngesting() throws {
        let dir = TempDirectory("build-embed-overlap")
        // Every group holds more passages than one embedding step, so a step is due before the last group.
        let sections = CorpusBuilder.embeddingBatch * 4 * Workers.besidePack / CorpusBuilder.filesPerGroup + 1
        for n in 0..<(3 * CorpusBuilder.filesPerGroup) {
            let body = (0..<sections).map { "## Part \($0)\n\nText \($0) of file \(n), café." }.joined(separator: "\n\n")
            try dir.write(String(format: "src/doc-%03d.md", n), "# Doc \(n)\n\n\(body)")
        }
        let embedder = IngestWatchingEmbedder()
        var options = Self.options(dir)
        options.indexAtInstall = false
        let key = try SecretKey.generate()
        let summary = try CorpusBuilder.build(options, key: key, output: dir.url("out/sample.corpus.zip"), embedder: embedder) { step in
            if case .ingested = step { embedder.ingestEnded() }
        }
        let (before, after) = embedder.calls()
        #expect(before > 0, "no passage was embedded before ingest ended (\(after) after)")

        try BundleReader(path: summary.output).extract(to: dir.url("x"), trustedKeys: [key.publicKey])
        // The vectors a writer makes of the pack's passages in row order, embedded one by one.
        let db = try Database(path: dir.url("x/pack.sqlite"), mode: .readOnly)
        let rows = try db.prepare("SELECT section, text FROM passages ORDER BY id")
        let expected = try VectorFileWriter(path: dir.url("expected.bin"), encoding: .int8, dimension: embedder.dimension, rows: nil)
        var count = 0
        while try rows.step() {
            let section = rows.text(0), text = rows.text(1)
            try expected.append(try HashingEmbedder().embed([section.isEmpty ? text : "\(section)\n\(text)"])[0])
            count += 1
        }
        try expected.finish()
        #expect(count == summary.passages && before + after == count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.url("x/vectors.bin"))) == Data(contentsOf: URL(fileURLWithPath: dir.url("expected.bin"))))
    }

    @Test func manifestVerifiesWithRealMinisign() throws {
        let dir = TempDirectory("build-minisign")
        try Self.sampleSource(dir)
        let key = try SecretKey.generate()
        try dir.write("key.pub", key.publicKey.fileText)
        let summary = try CorpusBuilder.build(Self.options(dir), key: key, output: dir.url("sample.corpus.zip"))
        let manifest = try PublisherFixtures.unzipMember(summary.output, "corpus.json", into: dir.path)
        _ = try PublisherFixtures.unzipMember(summary.output, "corpus.json.minisig", into: dir.path)
        let r = try PublisherFixtures.minisignVerify(manifest, publicKey: dir.url("key.pub"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Trusted comment: corpus:sample version:1.2 content:\(summary.manifest.content.prefix(16))"))
    }

    @Test func folderWithoutTextIsAnErrorAndWritesNothing() throws {
        let dir = TempDirectory("build-empty")
        try dir.write("src/.hidden.md", "# Hidden\n\ntext")
        try dir.write("src/blob.txt", Data([0, 1, 2, 3]))
        try FileManager.default.createDirectory(atPath: dir.url("out"), withIntermediateDirectories: true)
        let before = DirectorySnapshot(dir.path)
        #expect(throws: PublisherError.noPassages(source: dir.url("src"), skipped: 1)) {
            try CorpusBuilder.build(Self.options(dir), key: try SecretKey.generate(), output: dir.url("out/x.corpus.zip"))
        }
        #expect(DirectorySnapshot(dir.path) == before)
    }
}

/// The build's own embedder, counting the passages it was asked to embed before and after the
/// build reported the end of ingest.
private final class IngestWatchingEmbedder: Embedder, @unchecked Sendable {
    let id = HashingEmbedder.identifier
    let dimension = HashingEmbedder().dimension
    private let lock = NSLock()
    private var ended = false
    private var before = 0
    private var after = 0

    func ingestEnded() { lock.withLock { ended = true } }

    func calls() -> (before: Int, after: Int) { lock.withLock { (before, after) } }

    func embed(_ texts: [String]) throws -> [[Float]] {
        lock.withLock { if ended { after += texts.count } else { before += texts.count } }
        return try HashingEmbedder().embed(texts)
    }
}
