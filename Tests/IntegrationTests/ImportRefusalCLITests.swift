import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Every malformed source `corpusd build --from` is given is refused with one line naming the
/// file and the field, exit 2 (a broken export is the user's to fix) or exit 3 for an archive
/// entry that could escape (zip slip, a link), and nothing is written (`ImportCLIRun.expectRefusal`).
@Suite struct ImportRefusalCLITests {
    static let readerHint = "export it again from the reader app; docs/import.md lists what --from corpuskit accepts"
    static let knowledgeHint = "export it again from the knowledge app; docs/import.md lists what --from knowledgepress accepts"
    static let browserHint = "export it again from the browser; docs/import.md lists what --from lumen accepts"
    static let unsafeHint = "the archive is crafted or damaged; do not use it"

    // MARK: the reader app's .corpus.zip

    /// A small reader-app corpus, 2 chapters of 3 chunks (6 rows of 768), changed by `stage`.
    static func reader(_ run: ImportCLIRun, _ stage: (inout ReaderAppFixture) -> Void) throws -> String {
        var f = ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 3)
        stage(&f)
        let path = run.work.url("bad.corpus.zip")
        try f.write(to: path)
        return path
    }

    static let readerCases: [(String, @Sendable (inout ReaderAppFixture) -> Void, String)] = [
        ("npy with the wrong shape", { f in f.replaced["embeddings.npy"] = ReaderAppFixture.npy(f.vectorValues(), shape: "(4608,)") },
         "embeddings.npy has shape (4608,); it must be (chunks, dimension)"),
        ("npy with a column too few", { f in
            f.replaced["embeddings.npy"] = ReaderAppFixture.npy(Array(f.vectorValues().prefix(6 * 767)), shape: "(6, 767)")
         }, "embeddings.npy has 767 columns, corpus_meta.json says embedding_dimension 768"),
        ("npy with the wrong dtype", { f in
            f.replaced["embeddings.npy"] = ReaderAppFixture.npy(f.vectorValues() + f.vectorValues(), shape: "(6, 768)", descr: "<f8")
         }, "embeddings.npy holds \"<f8\" values; it must be little-endian float32 ('<f4')"),
        ("npy in Fortran order", { f in f.replaced["embeddings.npy"] = ReaderAppFixture.npy(f.vectorValues(), shape: "(6, 768)", fortran: true) },
         "embeddings.npy is in Fortran (column-major) order; it must be in C order"),
        ("chunk count other than the rows", { f in
            f.replaced["embeddings.npy"] = ReaderAppFixture.npy(Array(f.vectorValues().prefix(5 * 768)), shape: "(5, 768)")
         }, "embeddings.npy has 5 rows and chunks.json 6 chunks; row i is the vector of chunk i"),
        ("a NaN in the vectors", { f in
            var v = f.vectorValues()
            v[4 * 768 + 100] = .nan
            f.vectors = v
         }, "embeddings.npy row 4 (chunk \"c1-1\") holds NaN or an infinity"),
        ("an infinity in the vectors", { f in
            var v = f.vectorValues()
            v[767] = -.infinity
            f.vectors = v
         }, "embeddings.npy row 0 (chunk \"c0-0\") holds NaN or an infinity"),
        ("no chunks.json", { f in f.omitted = ["chunks.json"] }, "chunks.json is missing"),
        ("no corpus_meta.json", { f in f.omitted = ["corpus_meta.json"] }, "corpus_meta.json is missing"),
        ("a chunk without text", { f in
            f.replaced["chunks.json"] = Array(#"[{"id":"a","chapter":"ch1","text":"one"},{"id":"b","chapter":"ch1","text":"two"},{"id":"c","chapter":"ch1"}]"#.utf8)
         }, "chunks.json: missing field 2.text"),
        ("a chunk without a chapter", { f in
            f.replaced["chunks.json"] = Array(#"{"chunks":[{"id":"a","text":"one"}]}"#.utf8)
         }, "chunks.json: missing field chunks.0.chapter"),
        ("a chunk of a chapter the metadata does not list", { f in f.chunks[5].chapter = "ch9" },
         "chunks.json: chunk 5 names chapter \"ch9\", which corpus_meta.json's chapters do not list"),
        ("a chunk id twice", { f in f.chunks[4].id = "c0-1" }, "chunks.json: chunk id \"c0-1\" is used twice (chunks 1 and 4)"),
        ("chunks.json that is not JSON", { f in f.replaced["chunks.json"] = Array("[{\"id\":".utf8) }, "chunks.json: not valid JSON"),
        ("a NUL in a chapter title", { f in f.chapters[0].title = "Chapter\u{0}one" }, "the title of document \"ch1\" holds a NUL character"),
        ("a NUL in a chunk", { f in f.chunks[2].text += "\u{0}" }, "chunks.json: the text of chunk 2 holds a NUL character"),
    ]

    @Test(arguments: readerCases.indices)
    func aMalformedReaderAppCorpusIsRefused(_ n: Int) throws {
        let (what, stage, reason) = Self.readerCases[n]
        let run = try ImportCLIRun()
        let source = try Self.reader(run, stage)
        try run.expectRefusal(source, from: "corpuskit", status: 2, code: "import-source",
                              message: "reader-app corpus \(source): \(reason)", hint: Self.readerHint)
        _ = what
    }

    /// Member names that could escape where an archive is unpacked (none is unpacked here), and
    /// links: the archive was made by something else than the app, and is refused whole (exit 3).
    static let unsafeMembers: [(CraftedZipEntry, String)] = [
        (CraftedZipEntry(name: "../../escape.md", stored: Array("x".utf8)),
         "member \"../../escape.md\" is not a plain relative path (zip slip); nothing was read from it"),
        (CraftedZipEntry(name: "/etc/cron.d/escape", stored: Array("x".utf8)),
         "member \"/etc/cron.d/escape\" is not a plain relative path (zip slip); nothing was read from it"),
        (CraftedZipEntry(name: "pages/../../escape.md", stored: Array("x".utf8)),
         "member \"pages/../../escape.md\" is not a plain relative path (zip slip); nothing was read from it"),
        (CraftedZipEntry(name: "pages\\..\\escape.md", stored: Array("x".utf8)),
         "member \"pages\\\\..\\\\escape.md\" is not a plain relative path (zip slip); nothing was read from it"),
        ({ var e = CraftedZipEntry(name: "pages/link.md", stored: Array("/etc/passwd".utf8)); e.externalAttributes = (0o120777 as UInt32) << 16; return e }(),
         "member \"pages/link.md\" is a symbolic link; an export holds files only"),
    ]

    @Test(arguments: unsafeMembers.indices)
    func zipSlipInsideABrowserExportIsRefusedAsUnsafe(_ n: Int) throws {
        let (entry, reason) = Self.unsafeMembers[n]
        let run = try ImportCLIRun()
        var f = BrowserExportFixture(pages: 3, paragraphsPerPage: 2)
        f.extra = [entry]
        let source = run.work.url("export.zip")
        try f.write(to: source)
        try run.expectRefusal(source, from: "lumen", status: 3, code: "unsafe-input",
                              message: "browser export \(source) refused: \(reason)", hint: Self.unsafeHint)
    }

    @Test func zipSlipInsideAReaderAppCorpusIsRefusedAsUnsafe() throws {
        let run = try ImportCLIRun()
        let source = try Self.reader(run) { $0.extra = [CraftedZipEntry(name: "../chunks.json", stored: Array("[]".utf8))] }
        try run.expectRefusal(source, from: "corpuskit", status: 3, code: "unsafe-input",
                              message: "reader-app corpus \(source) refused: member \"../chunks.json\" is not a plain relative path (zip slip); nothing was read from it",
                              hint: Self.unsafeHint)
    }

    // MARK: the browser's export

    static let browserCases: [(String, @Sendable (inout BrowserExportFixture) -> Void, String)] = [
        ("no knowledge.json", { f in f.omitted = ["knowledge.json"] }, "knowledge.json is missing"),
        ("a page without an id", { f in
            f.replaced["knowledge.json"] = Array(#"{"pages":[{"id":"p0","file":"pages/p0.md"},{"url":"https://example.org/"}]}"#.utf8)
         }, "knowledge.json: missing field pages.1.id"),
        ("no pages", { f in f.replaced["knowledge.json"] = Array(#"{"highlights":[]}"#.utf8) }, "knowledge.json: missing field pages"),
        ("a page whose file is not there", { f in f.omitted = ["pages/p1.md"] },
         "knowledge.json: page 1 (\"p1\") names file \"pages/p1.md\", which the export does not hold"),
        ("a timestamp that is none", { f in
            f.replaced["knowledge.json"] = Array(#"{"pages":[{"id":"p0","file":"pages/p0.md","timestamp":"last week"}]}"#.utf8)
         }, "knowledge.json: not a timestamp (ISO 8601 such as 2026-03-01T09:30:00Z, or Unix seconds) at pages.0.timestamp"),
        ("a highlight without text", { f in
            f.replaced["knowledge.json"] = Array(#"{"pages":[{"id":"p0","file":"pages/p0.md"}],"highlights":[{"page":"p0","prefix":"a"}]}"#.utf8)
         }, "knowledge.json: missing field highlights.0.text"),
        ("a highlight of a page it does not list", { f in
            f.replaced["knowledge.json"] = Array(#"{"pages":[{"id":"p0","file":"pages/p0.md"}],"highlights":[{"page":"p7","text":"tide"}]}"#.utf8)
         }, "knowledge.json: highlight 0 names page \"p7\", which knowledge.json's pages do not list"),
        ("a page that is not UTF-8", { f in f.replaced["pages/p2.md"] = [0x23, 0x20, 0xff, 0xfe, 0x41] }, "pages/p2.md is not valid UTF-8 text"),
    ]

    @Test(arguments: browserCases.indices)
    func aMalformedBrowserExportIsRefused(_ n: Int) throws {
        let (_, stage, reason) = Self.browserCases[n]
        let run = try ImportCLIRun()
        var f = BrowserExportFixture(pages: 3, paragraphsPerPage: 2)
        stage(&f)
        let source = run.work.url("export.zip")
        try f.write(to: source)
        try run.expectRefusal(source, from: "lumen", status: 2, code: "import-source", message: "browser export \(source): \(reason)",
                              hint: Self.browserHint)
    }

    // MARK: the knowledge app's Corpus/ folder

    static let knowledgeCases: [(String, @Sendable (inout KnowledgeAppFixture) -> Void, (@Sendable (String) throws -> Void)?, String)] = [
        ("a pack without passages_fts", { f in f.withFTS = false }, nil,
         "gutenberg.pack has no passages_fts table (the FTS5 index over passages), so it is not a knowledge-app pack"),
        ("a manifest.json naming another embedder than embedder.json", { f in f.embedderFileModel = "sentence-transformers/all-MiniLM-L6-v2" }, nil,
         "manifest.json names embedder \"BAAI/bge-small-en-v1.5\" and embedder.json \"sentence-transformers/all-MiniLM-L6-v2\": which model made the vectors is unclear"),
        ("a manifest.json and embedder.json of other dimensions", { _ in }, { folder in
            try #"{"model":"BAAI/bge-small-en-v1.5","dimension":768}"#.write(toFile: "\(folder)/embedder.json", atomically: true, encoding: .utf8)
         }, "manifest.json says the embedder has 384 dimensions and embedder.json 768"),
        ("no manifest.json", { _ in }, { folder in try FileManager.default.removeItem(atPath: "\(folder)/manifest.json") },
         "manifest.json is missing"),
        ("a manifest.json naming no embedder", { _ in }, { folder in
            try #"{"packs":["gutenberg.pack"]}"#.write(toFile: "\(folder)/manifest.json", atomically: true, encoding: .utf8)
         }, "manifest.json names no embedder (field embedder)"),
        ("vectors of the wrong size", { f in f.vectorsSizeDelta = 1 }, nil,
         "gutenberg.vectors holds 4609 bytes; 12 passages × 384 dimensions of int8 need 4608 (or 4656 with a float32 scale per row)"),
        ("a passage id in two packs", { f in f.duplicateID = true }, nil,
         "passage id \"pg1000-0\" is in gutenberg.pack and in news.pack; passage ids must be unique"),
        ("a passage of a book core.pack does not list", { f in f.unknownBook = true }, nil,
         "gutenberg.pack: passage \"pg1002-0\" names book \"999999\", which core.pack's books table does not list"),
        ("a passages table without text", { f in f.textColumn = "body" }, nil, "gutenberg.pack: the passages table has no text column"),
        ("a pack whose passages are a view", { _ in }, { folder in
            let r = try ProcessRunner.run("sqlite3", ["\(folder)/news.pack", "ALTER TABLE passages RENAME TO rows; CREATE VIEW passages AS SELECT * FROM rows"])
            guard r.status == 0 else { throw IntegrationError("sqlite3: \(r.stderr)") }
         }, "news.pack: passages is a view, not a table"),
        ("the only pack a link leaving the folder", { f in
            f.withNews = false
            f.listsPacks = false
            f.linkedOutside = ["gutenberg.pack"]
         }, nil, "it holds no pack of passages (manifest.json lists none, and no .pack file but core.pack is there); skipped gutenberg.pack: symbolic link leaving the source folder"),
        ("a pack that is not SQLite", { _ in }, { folder in
            try "not a database".write(toFile: "\(folder)/news.pack", atomically: true, encoding: .utf8)
         }, "news.pack is not a readable SQLite pack (file is not a database)"),
    ]

    @Test(arguments: knowledgeCases.indices)
    func aMalformedKnowledgeAppFolderIsRefused(_ n: Int) throws {
        let (_, stage, after, reason) = Self.knowledgeCases[n]
        let run = try ImportCLIRun()
        var f = KnowledgeAppFixture(books: 3, passagesPerBook: 4)
        stage(&f)
        let source = run.work.url("Corpus")
        try f.write(to: source)
        try after?(source)
        try run.expectRefusal(source, from: "knowledgepress", status: 2, code: "import-source",
                              message: "knowledge-app folder \(source): \(reason)", hint: Self.knowledgeHint)
    }

    // MARK: sources of the wrong kind

    /// Without `--from`, an app's zip is named for what it is (it was "does not exist or is not a
    /// folder", exit 6).
    @Test func anAppsCorpusWithoutFromIsNamedWithTheFromThatReadsIt() throws {
        let run = try ImportCLIRun()
        let zip = try Self.reader(run) { _ in }
        _ = try run.work.write("out/keep.txt", "the publisher's own file")
        let before = DirectorySnapshot(run.work.path)
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", zip, "--id", "bad", "--version", "1", "--key", run.key,
                                                              "--out", run.work.url("out/bad-1.corpus.zip")])
        #expect(r.status == 2)
        #expect(r.stderr == "error: \(zip) is a reader-app corpus, not a folder of documents (add --from corpuskit to import it; docs/import.md says what it accepts)\n")
        #expect(DirectorySnapshot(run.work.path) == before)
    }

    @Test func aSourceOfTheWrongKindIsRefusedWithWhatToGive() throws {
        let run = try ImportCLIRun()
        let folder = run.work.url("Corpus")
        try KnowledgeAppFixture(books: 1, passagesPerBook: 2).write(to: folder)
        try run.expectRefusal(folder, from: "corpuskit", status: 2, code: "import-source",
                              message: "reader-app corpus \(folder): it is a folder; --from corpuskit reads the zip file the app exported", hint: Self.readerHint)
        let zip = try Self.reader(run) { _ in }
        try run.expectRefusal(zip, from: "knowledgepress", status: 2, code: "import-source",
                              message: "knowledge-app folder \(zip): it is a file; --from knowledgepress reads the app's folder (Corpus/)", hint: Self.knowledgeHint)
        try run.expectRefusal(zip, from: "lumen", status: 2, code: "import-source",
                              message: "browser export \(zip): knowledge.json is missing", hint: Self.browserHint)
    }
}
