import Foundation
import CorpusFormat
import CorpusEngine

/// Writes the passage pack (`pack.sqlite`) exactly as docs/format.md specifies.
///
/// The same documents and passages always give the same bytes: rows go in in one order,
/// nothing time- or randomness-dependent is stored, FTS5 is merged into one segment with
/// `optimize`, and `VACUUM` rewrites the file compactly at the end. The build runs with the
/// journal off (a failed build is thrown away, never repaired) and switches to `DELETE` before
/// the final `VACUUM`, so the finished file needs no journal.
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

    private let db: Database
    private let insertDocument: Statement
    private let insertPassage: Statement
    private let insertFTS: Statement
    private var nextPassage = 0

    /// Creates the file (which must not exist) with the schema, ready for rows.
    public init(path: String) throws {
        guard !FileIO.exists(path) else { throw FormatError.io(operation: "create pack", path: path, errno: EEXIST) }
        db = try Database(path: path, mode: .create)
        try db.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY")
        try db.execute(Self.schema)
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
        try insertFTS.bind(1, row).bind(2, p.title).bind(3, p.section).bind(4, p.text).run()
        nextPassage += 1
        return row
    }

    /// Writes the meta rows, commits, merges the index and compacts the file.
    public func finish(corpusID: String, version: String, embedderID: String, dimension: Int, documents: Int) throws {
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES(?, ?)")
        let rows: [(String, String)] = [
            ("format", "1"), ("corpus_id", corpusID), ("corpus_version", version), ("embedder_id", embedderID),
            ("embedder_dimension", String(dimension)), ("documents", String(documents)), ("passages", String(nextPassage)),
        ]
        for (k, v) in rows { try meta.bind(1, k).bind(2, v).run() }
        try db.execute("COMMIT")
        try db.execute("INSERT INTO passages_fts(passages_fts) VALUES('optimize')")
        try db.execute("PRAGMA journal_mode=DELETE")
        try db.execute("VACUUM")
    }
}

@available(*, unavailable) extension PackWriter: Sendable {}
