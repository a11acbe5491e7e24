import Foundation
import CorpusFormat
import CorpusEngine

/// Writes the passage pack (`pack.sqlite`) exactly as docs/format.md specifies.
///
/// The same documents and passages always give the same bytes: rows go in in one order,
/// nothing time- or randomness-dependent is stored, FTS5 is merged into one segment with
/// `optimize`, and `VACUUM INTO` writes the finished file compactly at the end.
///
/// Rows go into a scratch database (in memory, or a scratch file for corpora too big for that)
/// with the journal off: a failed build is thrown away, never repaired. FTS5 keeps up to
/// `hashSize` bytes of new index in memory before it writes a segment (its default is 1 MB:
/// a 100,000-passage build wrote dozens of segments and merged them again and again), and its
/// incremental merging is off, so the final `optimize` merges the few segments in one pass; a
/// level is still merged when it reaches `crisisMerge` segments, which bounds the segment count
/// for any corpus size. Counted with callgrind on 100,000 passages through the sqlite3 CLI,
/// inserting and optimizing took 15.9 G instructions with FTS5's defaults, 15.7 G with an 8 MB
/// hash and 12.4 G with 64 MB. The settings are removed before the copy, so the pack holds
/// FTS5's defaults. `VACUUM INTO` writes the destination once; building in place and then
/// `VACUUM` wrote every page twice more.
public final class PackWriter {
    public static let schema = """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE documents(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, title TEXT NOT NULL);
    CREATE TABLE passages(
      id INTEGER PRIMARY KEY,
      pid TEXT NOT NULL UNIQUE,
      document_id INTEGER NOT NULL REFERENCES documents(id),
      ordinal INTEGER NOT NULL,
      title TEXT NOT NULL,
      section TEXT NOT NULL,
      text TEXT NOT NULL);
    CREATE VIRTUAL TABLE passages_fts USING fts5(
      title, section, text, content='passages', content_rowid='id',
      tokenize='porter unicode61 remove_diacritics 2');
    """

    /// Segments of one level that FTS5 merges while rows go in.
    static let crisisMerge = 64
    /// Bytes of pending index FTS5 holds in memory before writing a segment.
    static let hashSize = 64 << 20
    /// The page size of a pack that ships without its index (the download). Passages of up to
    /// 1,000 characters fill 4 KiB pages poorly and spill into overflow pages; on SQLite's
    /// documentation (7,935 passages) the pack deflated at level 9 was 2.294 MB with 512-byte
    /// pages, 2.288 MB with 1 KiB, 2.283 MB with 2 KiB, 2.210 MB with 4 KiB (SQLite's default),
    /// 2.184 MB with 8 KiB, 2.176 MB with 16 KiB and 2.200 MB with 64 KiB. A pack with its index
    /// keeps SQLite's default: its bytes stay what they were.
    static let unindexedPageSize = 16_384

    private let db: Database
    private let destination: String
    private let scratch: String?
    private let insertDocument: Statement
    private let insertPassage: Statement
    private let insertFTS: Statement
    private var nextPassage = 0
    /// False: the FTS5 table is created but left empty (`Manifest.index == .install`).
    private let indexed: Bool
    private var insertDocumentMeta: Statement?
    private var insertPassageMeta: Statement?
    private var insertHighlight: Statement?

    /// A row of the optional `highlights` table; `passageRow` is the passage's row, when one holds the text.
    public struct HighlightRow: Sendable, Hashable {
        public var documentID: Int
        public var passageRow: Int?
        public var text: String
        public var prefix: String
        public var suffix: String
        public var created: String?
    }

    /// Prepares to write the pack to `path` (which must not exist; it is created by `finish`).
    /// - Parameter scratch: where rows go meanwhile: nil for memory (about the finished
    ///   pack's size), or a path that must not exist, removed when the writer goes away.
    public init(path: String, scratch: String? = nil, indexed: Bool = true) throws {
        self.indexed = indexed
        for p in [path, scratch].compactMap({ $0 }) where FileIO.exists(p) {
            throw FormatError.io(operation: "create pack", path: p, errno: EEXIST)
        }
        destination = path
        self.scratch = scratch
        db = try Database(path: scratch ?? ":memory:", mode: .create)
        // Before the first table: `VACUUM INTO` writes the pack with the page size of this database.
        if !indexed { try db.execute("PRAGMA page_size=\(Self.unindexedPageSize)") }
        try db.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY")
        try db.execute(Self.schema)
        try db.execute("""
            INSERT INTO passages_fts(passages_fts, rank) VALUES('automerge', 0);
            INSERT INTO passages_fts(passages_fts, rank) VALUES('crisismerge', \(Self.crisisMerge));
            INSERT INTO passages_fts(passages_fts, rank) VALUES('hashsize', \(Self.hashSize));
            """)
        try db.execute("BEGIN")
        insertDocument = try db.prepare("INSERT INTO documents(id, path, title) VALUES(?, ?, ?)")
        insertPassage = try db.prepare("INSERT INTO passages(id, pid, document_id, ordinal, title, section, text) VALUES(?, ?, ?, ?, ?, ?, ?)")
        insertFTS = try db.prepare("INSERT INTO passages_fts(rowid, title, section, text) VALUES(?, ?, ?, ?)")
    }

    /// Adds a document; ids are 1-based in the order documents are added.
    public func addDocument(id: Int, path: String, title: String) throws {
        try insertDocument.bind(1, id).bind(2, path).bind(3, title).run()
    }

    /// Adds a passage; its row id is the next 0-based row, which is also its row in `vectors.bin`.
    @discardableResult
    public func addPassage(_ p: Passage, documentID: Int) throws -> Int {
        let row = nextPassage
        try insertPassage.bind(1, row).bind(2, p.pid).bind(3, documentID).bind(4, p.ordinal)
            .bind(5, p.title).bind(6, p.section).bind(7, p.text).run()
        if indexed { try insertFTS.bind(1, row).bind(2, p.title).bind(3, p.section).bind(4, p.text).run() }
        nextPassage += 1
        return row
    }

    /// Adds a row of the optional `document_meta` table, creating the table with the first one.
    public func addDocumentMeta(documentID: Int, key: String, value: String) throws {
        let s = try optional(&insertDocumentMeta, PackSchema.documentMetaStatements,
                             "INSERT INTO document_meta(document_id, key, value) VALUES(?, ?, ?)")
        try s.bind(1, documentID).bind(2, key).bind(3, value).run()
    }

    /// Adds a row of the optional `passage_meta` table (`passageRow`: the passage's row id).
    public func addPassageMeta(passageRow: Int, key: String, value: String) throws {
        let s = try optional(&insertPassageMeta, PackSchema.passageMetaStatements,
                             "INSERT INTO passage_meta(passage_id, key, value) VALUES(?, ?, ?)")
        try s.bind(1, passageRow).bind(2, key).bind(3, value).run()
    }

    /// Adds a row of the optional `highlights` table, creating the table with the first one.
    public func addHighlight(_ h: HighlightRow) throws {
        let s = try optional(&insertHighlight, PackSchema.highlightsStatements,
                             "INSERT INTO highlights(document_id, passage_id, text, prefix, suffix, created) VALUES(?, ?, ?, ?, ?, ?)")
        // A parameter left unbound is NULL (`run` resets and clears the bindings after each row).
        try s.bind(1, h.documentID).bind(3, h.text).bind(4, h.prefix).bind(5, h.suffix)
        if let row = h.passageRow { try s.bind(2, row) }
        if let created = h.created { try s.bind(6, created) }
        try s.run()
    }

    /// The insert of an optional table, creating the table (and its index) on first use.
    private func optional(_ statement: inout Statement?, _ create: [String], _ insert: String) throws -> Statement {
        if let statement { return statement }
        for sql in create { try db.execute(sql) }
        let prepared = try db.prepare(insert)
        statement = prepared
        return prepared
    }

    deinit {
        if let scratch { FileIO.remove(scratch) }
    }

    /// Writes the meta rows (`extraMeta` after the format's own), commits, merges the index and
    /// writes the compact pack file.
    public func finish(corpusID: String, version: String, embedderID: String, dimension: Int, documents: Int,
                       extraMeta: [(String, String)] = []) throws {
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES(?, ?)")
        let rows: [(String, String)] = [
            ("format", "1"), ("corpus_id", corpusID), ("corpus_version", version), ("embedder_id", embedderID),
            ("embedder_dimension", String(dimension)), ("documents", String(documents)), ("passages", String(nextPassage)),
        ] + extraMeta
        for (k, v) in rows { try meta.bind(1, k).bind(2, v).run() }
        try db.execute("COMMIT")
        try db.execute("INSERT INTO passages_fts(passages_fts) VALUES('optimize')")
        // Nothing is written through FTS5 after this, so its cached settings do not matter.
        try db.execute("DELETE FROM passages_fts_config WHERE k IN ('automerge', 'crisismerge', 'hashsize')")
        try db.prepare("VACUUM INTO ?").bind(1, destination).run()
    }
}

@available(*, unavailable) extension PackWriter: Sendable {}
