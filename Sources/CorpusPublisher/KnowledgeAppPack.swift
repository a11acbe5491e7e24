import Foundation
import CorpusFormat
import CorpusEngine

/// One SQLite pack of the knowledge app's `Corpus/` folder (`gutenberg.pack`, a dated pack),
/// read from a private copy: the copy is made through the confined folder (no link followed on
/// the way), so the file SQLite opens is the file that was checked, and it is opened read-only
/// with SQLite's hardening on (`Database.Mode.readOnly`: no triggers, views or schema code).
struct KnowledgeAppPack {
    struct Row {
        var id: String
        var text: String
        /// The document the passage belongs to: a book id (`book_id`) or a document key (`document`).
        var document: String
        var title: String?
        var section: String
        var ordinal: Double?
        var timestamp: String?
    }

    let file: String
    var rows: [Row] = []
    /// `pack_meta`'s `timestamp` (or `created`, `updated`, `date`), canonical.
    var timestamp: String?
    /// True when documents are books of `core.pack` (`book_id`), false for `document` keys.
    var byBook = false

    static let timestampKeys = ["timestamp", "created", "updated", "date"]

    /// Reads `file` (a copy at `copy`) as a pack: `passages` a table with `id`, `text` and
    /// `book_id` or `document`; `passages_fts` present and FTS5; `pack_meta` optional.
    init(file: String, copy: String, source: ImportSource) throws {
        self.file = file
        do {
            let db = try Database(path: copy, mode: .readOnly)
            let columns = try Self.checkSchema(db, file: file, source: source)
            byBook = columns.contains("book_id")
            timestamp = try Self.packTimestamp(db, file: file, source: source)
            rows = try Self.passages(db, columns: columns, file: file, source: source)
        } catch let e as SQLiteError {
            throw source.bad("\(file) is not a readable SQLite pack (\(e.message))")
        }
        guard !rows.isEmpty else { throw source.bad("\(file) holds no passages") }
    }

    /// The columns of `passages`, after checking the tables the format needs.
    static func checkSchema(_ db: Database, file: String, source: ImportSource) throws -> Set<String> {
        var objects: [String: (type: String, sql: String)] = [:]
        let s = try db.prepare("SELECT type, name, coalesce(sql, '') FROM sqlite_schema")
        while try s.step() { objects[s.text(1)] = (s.text(0), s.text(2)) }
        guard let passages = objects["passages"] else { throw source.bad("\(file) has no passages table") }
        guard passages.type == "table", !passages.sql.uppercased().hasPrefix("CREATE VIRTUAL") else {
            throw source.bad("\(file): passages is a \(passages.type == "table" ? "virtual table" : passages.type), not a table")
        }
        guard let fts = objects["passages_fts"] else {
            throw source.bad("\(file) has no passages_fts table (the FTS5 index over passages), so it is not a knowledge-app pack")
        }
        guard fts.sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE"), fts.sql.lowercased().contains("fts5") else {
            throw source.bad("\(file): passages_fts is not an FTS5 table")
        }
        var columns = Set<String>()
        let t = try db.prepare("SELECT name FROM pragma_table_info('passages')")
        while try t.step() { columns.insert(t.text(0)) }
        for needed in ["id", "text"] where !columns.contains(needed) {
            throw source.bad("\(file): the passages table has no \(needed) column")
        }
        guard columns.contains("book_id") || columns.contains("document") else {
            throw source.bad("\(file): the passages table has neither a book_id nor a document column, so passages belong to no document")
        }
        return columns
    }

    static func packTimestamp(_ db: Database, file: String, source: ImportSource) throws -> String? {
        guard try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'pack_meta'") == 1 else { return nil }
        var meta: [String: String] = [:]
        let s = try db.prepare("SELECT CAST(key AS TEXT), CAST(value AS TEXT) FROM pack_meta")
        while try s.step() { meta[s.text(0)] = s.text(1) }
        guard let key = timestampKeys.first(where: { meta[$0] != nil }), let value = meta[key] else { return nil }
        guard let canonical = SourceTimestamp.canonical(value) else {
            throw source.bad("\(file): pack_meta \(key) \(value.debugDescription) is not a timestamp")
        }
        return canonical
    }

    /// Every passage in `rowid` order (the order of the rows of the pack's vectors).
    static func passages(_ db: Database, columns: Set<String>, file: String, source: ImportSource) throws -> [Row] {
        func column(_ names: String...) -> String { names.first(where: columns.contains).map { "\"\($0)\"" } ?? "NULL" }
        let sql = """
            SELECT CAST(id AS TEXT), typeof(id), CAST(text AS TEXT), typeof(text), CAST(\(column("book_id", "document")) AS TEXT), \
            CAST(\(column("title")) AS TEXT), CAST(\(column("chapter", "section")) AS TEXT), \(column("ordinal", "position")), \
            CAST(\(column("timestamp", "created_at", "saved_at")) AS TEXT), typeof(\(column("ordinal", "position"))) \
            FROM passages ORDER BY rowid
            """
        let s = try db.prepare(sql)
        var rows: [Row] = []
        while try s.step() {
            let n = rows.count
            guard !s.isNull(0), ["text", "integer"].contains(s.text(1)) else { throw source.bad("\(file): passage row \(n) has no id (or one that is not text or an integer)") }
            let id = s.text(0)
            try source.checkID(id, what: "\(file): passage")
            guard !s.isNull(2), s.text(3) == "text" else { throw source.bad("\(file): passage \(id.debugDescription) has no text") }
            guard !s.isNull(4) else { throw source.bad("\(file): passage \(id.debugDescription) names no \(columns.contains("book_id") ? "book_id" : "document")") }
            var timestamp: String?
            if !s.isNull(8) {
                guard let t = SourceTimestamp.canonical(s.text(8)) else {
                    throw source.bad("\(file): the timestamp \(s.text(8).debugDescription) of passage \(id.debugDescription) is not a timestamp")
                }
                timestamp = t
            }
            let ordinal: Double? = ["integer", "real"].contains(s.text(9)) ? s.double(7) : nil
            rows.append(Row(id: id, text: s.text(2), document: s.text(4), title: s.isNull(5) ? nil : s.text(5),
                            section: s.isNull(6) ? "" : s.text(6), ordinal: ordinal, timestamp: timestamp))
        }
        return rows
    }

    /// A pack's vectors (`<name>.vectors`): `rows` × `dimension` int8 values, optionally followed
    /// by one little-endian float32 scale per row; any other size is refused before a byte is read,
    /// and every scale must be finite. The values are returned when `read`, else left unread ([]).
    static func vectors(_ file: SourceFile, in folder: SourceFolder, rows: Int, dimension: Int, read: Bool,
                        source: ImportSource) throws -> [Int8] {
        let plain = Int64(rows) * Int64(dimension), scaled = plain + 4 * Int64(rows)
        guard file.size == plain || file.size == scaled else {
            throw source.bad("\(file.path) holds \(file.size) bytes; \(rows) passages × \(dimension) dimensions of int8 need \(plain) (or \(scaled) with a float32 scale per row)")
        }
        guard read || file.size == scaled else { return [] }
        var values: [Int8] = []
        var scales: [UInt8] = []
        if read { values.reserveCapacity(Int(plain)) }
        var offset: Int64 = 0
        do {
            let (reader, _) = try folder.open(file)
            // Streamed: only what is kept is held (the values when read, the scales).
            try reader.forEachChunk { chunk in
                let n = Int64(chunk.count)
                let split = Int(max(0, min(n, plain - offset)))
                if read, split > 0 { values += chunk[0..<split].map { Int8(bitPattern: $0) } }
                if split < chunk.count { scales += chunk[split...] }
                offset += n
            }
        } catch let e as IngestFailure {
            throw source.bad("\(file.path): \(e.reason)")
        }
        guard offset == file.size else { throw source.bad("\(file.path) changed while it was read") }
        for r in 0..<(scales.count / 4) {
            let bits = UInt32(scales[4 * r]) | UInt32(scales[4 * r + 1]) << 8 | UInt32(scales[4 * r + 2]) << 16 | UInt32(scales[4 * r + 3]) << 24
            guard Float(bitPattern: bits).isFinite else { throw source.bad("\(file.path): the scale of row \(r) is NaN or an infinity") }
        }
        return values
    }
}

/// The books of the knowledge app's `core.pack`: `books(id, title, author?, genre_id? | genre?)`
/// and, for `genre_id`, `genres(id, name)`.
struct KnowledgeAppBooks {
    struct Book {
        var title: String
        var author: String?
        var genre: String?
    }

    var books: [String: Book] = [:]

    init(file: String, copy: String, source: ImportSource) throws {
        do {
            let db = try Database(path: copy, mode: .readOnly)
            var columns = Set<String>()
            let t = try db.prepare("SELECT name FROM pragma_table_info('books')")
            while try t.step() { columns.insert(t.text(0)) }
            guard try db.scalarText("SELECT type FROM sqlite_schema WHERE name = 'books'") == "table" else {
                throw source.bad("\(file) has no books table")
            }
            for needed in ["id", "title"] where !columns.contains(needed) { throw source.bad("\(file): the books table has no \(needed) column") }
            let genres = try db.scalarText("SELECT type FROM sqlite_schema WHERE name = 'genres'") == "table"
            let genre = columns.contains("genre_id") && genres
                ? "(SELECT CAST(name AS TEXT) FROM genres g WHERE g.id = b.genre_id)"
                : columns.contains("genre") ? "CAST(b.genre AS TEXT)" : "NULL"
            let author = columns.contains("author") ? "CAST(b.author AS TEXT)" : "NULL"
            let s = try db.prepare("SELECT CAST(b.id AS TEXT), CAST(b.title AS TEXT), \(author), \(genre) FROM books b ORDER BY b.rowid")
            while try s.step() {
                guard !s.isNull(0), !s.isNull(1) else { throw source.bad("\(file): a book has no id or no title") }
                books[s.text(0)] = Book(title: s.text(1), author: s.isNull(2) ? nil : s.text(2), genre: s.isNull(3) ? nil : s.text(3))
            }
        } catch let e as SQLiteError {
            throw source.bad("\(file) is not a readable SQLite pack (\(e.message))")
        }
    }
}
