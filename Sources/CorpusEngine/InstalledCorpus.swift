import Foundation
import CorpusFormat
import Synchronization

/// One installed corpus version, opened read-only from its version folder
/// (`corpora/<remote>/<id>/versions/<version>/`, docs/layout.md).
///
/// The installer verified the signature and every member's hash before it moved the folder into
/// place, so the engine trusts the folder's bytes; what it still refuses is a pack that could run
/// code or replay writes (triggers, views, a journal or WAL beside it) and a pack whose contents
/// disagree with its manifest. Every file is opened by its path inside the resolved version
/// folder, never through `current`, so all of them belong to the same version.
public final class InstalledCorpus: @unchecked Sendable {
    // @unchecked: the stored properties are immutable, VectorIndex is Sendable, and the one
    // SQLite connection is only ever touched inside `connection.withLock`.
    public let remote: String
    public let manifest: Manifest
    /// The resolved version folder every file was opened from.
    public let folder: String
    public let vectors: VectorIndex
    let connection: Mutex<Connection>
    /// The passages in reading order, made at the first browse (`ReadingOrder`).
    let readingOrder = Mutex<ReadingOrder?>(nil)

    public var id: String { manifest.id }
    public var version: CorpusVersion { manifest.version }
    /// `remote/id`, the name used in errors and in `SearchOptions.corpora`.
    public var name: String { "\(remote)/\(manifest.id)" }

    /// bm25 column weights for title, section, text: a word in a title says more about the passage.
    public static let columnWeights = "2.0, 1.5, 1.0"
    /// Marks around matched terms in snippets (docs/engine.md).
    public static let snippetOpen = "«"
    public static let snippetClose = "»"
    public static let snippetEllipsis = "…"
    static let snippetTokens = 16

    /// Opens the version folder `folder` of corpus `remote/<id>`.
    /// - Parameter expectedID: the id the layout files it under; the manifest must agree.
    public init(folder: String, remote: String, expectedID: String? = nil) throws {
        let label = "\(remote)/\(expectedID ?? (folder as NSString).lastPathComponent)"
        let manifestPath = "\(folder)/\(BundleLayout.manifest)"
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw EngineError.io(operation: "read", path: manifestPath, errno: errno == 0 ? ENOENT : errno)
        }
        let manifest: Manifest
        do { manifest = try Manifest.decode(data) } catch let e as FormatError {
            throw EngineError.manifest(corpus: label, e)
        }
        if let expectedID, manifest.id != expectedID {
            throw EngineError.packInconsistent(corpus: label, reason: "corpus.json names corpus \(manifest.id), installed as \(expectedID)")
        }
        let name = "\(remote)/\(manifest.id)"

        // A hot journal or WAL would be replayed into the pack by SQLite; refuse before opening.
        let packPath = "\(folder)/\(BundleLayout.pack)"
        for suffix in ["-wal", "-journal", "-shm"] {
            var st = stat()
            if lstat(packPath + suffix, &st) == 0 {
                throw EngineError.packHasJournal(corpus: name, file: BundleLayout.pack + suffix)
            }
        }
        guard FileIO.exists(packPath) else { throw EngineError.io(operation: "open", path: packPath, errno: ENOENT) }

        let connection: Connection
        do {
            let db = try Database(path: packPath, mode: .readOnly)
            try Self.checkSchema(db, name: name)
            try Self.checkContents(db, manifest: manifest, name: name)
            connection = try Connection(db)
        } catch let e as SQLiteError {
            throw EngineError.sqlite(corpus: name, e)
        }

        let vectors: VectorIndex
        do { vectors = try VectorIndex(path: "\(folder)/\(BundleLayout.vectors)") } catch let e as FormatError {
            throw EngineError.vectorsInconsistent(corpus: name, reason: e.description)
        }
        let h = vectors.header
        guard h.rows == manifest.passages, h.dimension == manifest.embedder.dimension, h.encoding.name == manifest.embedder.encoding else {
            throw EngineError.vectorsInconsistent(corpus: name, reason:
                "\(h.rows) rows of \(h.dimension) \(h.encoding.name), the manifest says \(manifest.passages) of \(manifest.embedder.dimension) \(manifest.embedder.encoding)")
        }

        self.remote = remote
        self.manifest = manifest
        self.folder = folder
        self.vectors = vectors
        self.connection = Mutex(connection)
    }

    /// `sqlite_schema` must hold no trigger or view, and the format's tables.
    private static func checkSchema(_ db: Database, name: String) throws {
        let s = try db.prepare("SELECT type, name FROM sqlite_schema WHERE type IN ('trigger', 'view') ORDER BY type, name LIMIT 1")
        if try s.step() { throw EngineError.packHasSchemaCode(corpus: name, kind: s.text(0), name: s.text(1)) }
        var tables = Set<String>()
        let t = try db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        while try t.step() { tables.insert(t.text(0)) }
        let missing = PackSchema.requiredTables.filter { !tables.contains($0) }
        guard missing.isEmpty else {
            throw EngineError.packInconsistent(corpus: name, reason: "missing table(s) \(missing.joined(separator: ", "))")
        }
    }

    /// The passages' count, lowest and highest id. Three scalar subqueries, not one aggregate:
    /// alone, count(*) is SQLite's b-tree count and min/max one seek each; as one aggregate they
    /// stepped every row (2 ms of CPU on 9,828 passages, at every open of every search).
    static let passageBoundsSQL = """
        SELECT (SELECT count(*) FROM passages), (SELECT coalesce(min(id), 0) FROM passages), \
        (SELECT coalesce(max(id), -1) FROM passages)
        """

    /// `meta` must say format 1 and agree with the manifest; row counts must match it, and
    /// passage ids must be exactly 0..<passages (they index rows of vectors.bin).
    private static func checkContents(_ db: Database, manifest m: Manifest, name: String) throws {
        var meta: [String: String] = [:]
        let s = try db.prepare("SELECT key, value FROM meta")
        while try s.step() { meta[s.text(0)] = s.text(1) }
        typealias K = PackSchema.Meta
        let expected: [(String, String)] = [
            (K.format, PackSchema.format), (K.corpusID, m.id), (K.corpusVersion, m.version.description),
            (K.embedderID, m.embedder.id), (K.embedderDimension, String(m.embedder.dimension)),
            (K.documents, String(m.documents)), (K.passages, String(m.passages)),
        ]
        for (key, value) in expected where meta[key] != value {
            let actual = meta[key].map { $0.debugDescription } ?? "missing"
            let reason = key == K.format ? "meta format is \(actual), this build reads format \(value)"
                                         : "meta \(key) is \(actual), the manifest says \(value.debugDescription)"
            throw EngineError.packInconsistent(corpus: name, reason: reason)
        }
        let documents = try db.scalarInt("SELECT count(*) FROM documents") ?? -1
        guard documents == m.documents else {
            throw EngineError.packInconsistent(corpus: name, reason: "\(documents) documents, the manifest says \(m.documents)")
        }
        let c = try db.prepare(passageBoundsSQL)
        _ = try c.step()
        guard c.int(0) == m.passages, c.int(1) == 0, c.int(2) == m.passages - 1 else {
            throw EngineError.packInconsistent(corpus: name, reason:
                "\(c.int(0)) passages with ids \(c.int(1))...\(c.int(2)), the manifest says \(m.passages) numbered from 0")
        }
    }

    /// Runs `PRAGMA quick_check` over the whole pack (seconds for a large one): the installer
    /// calls it once before swapping a version in, so corrupt pages are refused at install time.
    public func verifyIntegrity() throws {
        let problems: [String]
        do {
            problems = try connection.withLock { conn in
                let s = try conn.db.prepare("PRAGMA quick_check")
                var rows: [String] = []
                while try s.step() { rows.append(s.text(0)) }
                return rows
            }
        } catch let e as SQLiteError {
            throw EngineError.integrityCheckFailed(corpus: name, problems: [e.description])
        }
        guard problems == ["ok"] else { throw EngineError.integrityCheckFailed(corpus: name, problems: problems) }
    }

    /// The lexical channel: passage rows ranked by weighted BM25, best first, at most `limit`.
    ///
    /// A relaxation ladder (docs/engine.md): passages holding every token first; if fewer than
    /// `limit`, passages holding all tokens but one fill the remaining places; only when neither
    /// found anything, passages holding any token. Each stage ranks by BM25 and comes after the
    /// stages before it. Matching any single token is the costly stage on a large corpus (common
    /// words match a good part of it) and the weakest evidence, so it runs only as a last resort.
    public func lexicalSearch(tokens: [String], limit: Int) throws -> [Int32] {
        try lexicalSearchStaged(tokens: tokens, limit: limit).map(\.row)
    }

    /// `lexicalSearch` with the ladder stage each row came from: 0 every token, 1 all but one,
    /// 2 any token. The stage says how much of the query a passage holds, which compares across
    /// corpora where BM25 values do not. `bm25` is the row's weighted BM25 in its stage's query,
    /// higher is better (FTS5's `rank` negated), comparable only within one corpus and stage.
    public func lexicalSearchStaged(tokens: [String], limit: Int) throws -> [(row: Int32, stage: Int, bm25: Double)] {
        guard limit > 0, let all = FTSQuery.allTerms(tokens) else { return [] }
        do {
            return try connection.withLock { conn in
                var rows = try conn.ranked(all, limit: limit).map { (row: $0.row, stage: 0, bm25: $0.bm25) }
                var seen = Set(rows.map(\.row))
                func fill(_ expression: String, stage: Int) throws {
                    for r in try conn.ranked(expression, limit: limit) where rows.count < limit && seen.insert(r.row).inserted {
                        rows.append((row: r.row, stage: stage, bm25: r.bm25))
                    }
                }
                if rows.count < limit, let relaxed = FTSQuery.allButOne(tokens) { try fill(relaxed, stage: 1) }
                if rows.isEmpty && tokens.count > 1, let any = FTSQuery.anyTerm(tokens) { try fill(any, stage: 2) }
                return rows
            }
        } catch let e as SQLiteError {
            throw EngineError.sqlite(corpus: name, e)
        }
    }

    /// The passage rows whose time is inside `window` (`TimeWindow`), under the mutex like every query.
    func rows(in window: TimeWindow) throws -> Set<Int32> {
        do { return try connection.withLock { try Self.rows($0.db, in: window) } } catch let e as SQLiteError { throw EngineError.sqlite(corpus: name, e) }
    }

    /// Rows holding the phrase literally (`ExactPhrase.swift`), under the mutex like every query.
    func phraseMatches(_ expression: String, literal: String, limit: Int) throws -> [(row: Int32, detail: PassageDetail)] {
        do {
            return try connection.withLock { try Self.phraseMatches($0.db, expression, literal: literal, limit: limit) }
        } catch let e as SQLiteError {
            throw EngineError.sqlite(corpus: name, e)
        }
    }

    /// What a hit shows about one passage.
    public struct PassageDetail: Sendable, Hashable {
        public var passageID: String
        public var documentPath: String
        public var documentTitle: String
        public var section: String
        public var text: String
        public var snippet: String
    }

    /// Details of the given passage rows; snippets mark the query's tokens. Unknown rows are absent.
    public func details(rows: [Int32], tokens: [String]) throws -> [Int32: PassageDetail] {
        let any = FTSQuery.anyTerm(tokens)
        do {
            return try connection.withLock { conn in
                var out: [Int32: PassageDetail] = [:]
                for row in rows {
                    let d = conn.detail
                    defer { d.reset() }
                    try d.bind(1, Int64(row))
                    guard try d.step() else { continue }
                    let text = d.text(2)
                    var snippet: String?
                    if let any {
                        let s = conn.snippet
                        defer { s.reset() }
                        try s.bind(1, any).bind(2, Int64(row))
                        if try s.step() { snippet = s.text(0) }
                    }
                    out[row] = PassageDetail(passageID: d.text(0), documentPath: d.text(3), documentTitle: d.text(4),
                                             section: d.text(1), text: text, snippet: snippet ?? Self.leadingExcerpt(text))
                }
                return out
            }
        } catch let e as SQLiteError {
            throw EngineError.sqlite(corpus: name, e)
        }
    }

    /// The start of a passage, for hits the lexical channel did not find (nothing to mark).
    static func leadingExcerpt(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count > snippetTokens else { return words.joined(separator: " ") }
        return words.prefix(snippetTokens).joined(separator: " ") + snippetEllipsis
    }

    /// The connection and its prepared statements, used only under the mutex.
    struct Connection {
        let db: Database
        let lexical: Statement
        let detail: Statement
        let snippet: Statement

        init(_ db: Database) throws {
            self.db = db
            // BM25 as a column, ordered by SQLite's top-N sorter. FTS5's own `ORDER BY rank` (with
            // `rank MATCH 'bm25(…)'`) gives the same rows in the same order (equal scores by rowid,
            // as its sorter keeps them) but runs a second statement inside FTS5 for every query,
            // which cost more than the ranking itself in a one-search process (docs/engine.md).
            lexical = try db.prepare("""
                SELECT rowid, bm25(passages_fts, \(InstalledCorpus.columnWeights)) AS score FROM passages_fts \
                WHERE passages_fts MATCH ?1 ORDER BY score, rowid LIMIT ?2
                """)
            detail = try db.prepare("""
                SELECT p.pid, p.section, p.text, d.path, d.title FROM passages p \
                JOIN documents d ON d.id = p.document_id WHERE p.id = ?1
                """)
            snippet = try db.prepare("""
                SELECT snippet(passages_fts, 2, '\(InstalledCorpus.snippetOpen)', '\(InstalledCorpus.snippetClose)', \
                '\(InstalledCorpus.snippetEllipsis)', \(InstalledCorpus.snippetTokens)) \
                FROM passages_fts WHERE passages_fts MATCH ?1 AND rowid = ?2
                """)
        }

        /// Rows matching `expression`, best first, with their BM25 (FTS5's `rank` negated: higher is better).
        func ranked(_ expression: String, limit: Int) throws -> [(row: Int32, bm25: Double)] {
            let s = lexical
            defer { s.reset() }
            try s.bind(1, expression).bind(2, limit)
            var rows: [(row: Int32, bm25: Double)] = []
            while try s.step() { rows.append((row: Int32(truncatingIfNeeded: s.int(0)), bm25: -s.double(1))) }
            return rows
        }
    }
}
