import CorpusFormat
import Foundation

/// Applies a delta's row changes (`DeltaChanges`) to a copy of the installed pack, in one SQLite
/// transaction, keeping the FTS5 external-content index in step: every base row that goes away or
/// changes is first deleted from the index with its old values (FTS5's `'delete'` command needs
/// them), then from the table; the new rows go into both. Rows the delta does not list are not
/// touched, in the table or the index.
///
/// Before anything changes, every base row the delta names (kept from, or removed) must hold the
/// passage id it says, and every document it removes must exist: a delta made for another base is
/// refused (`DeltaError.baseMismatch`) with the copy unchanged. The caller then checks the result
/// against the signed manifest (`PackDigest`): this type trusts no count it did not check.
public enum PackPatcher {
    /// Patches the pack at `path`, which the caller owns (a staging copy), to the rows of
    /// `manifest`'s version; `meta` is rewritten from `manifest`.
    public static func apply(_ changes: DeltaChanges, toPackAt path: String, manifest: Manifest) throws {
        let db = try Database(path: path, mode: .update)
        // No journal file beside the pack at any moment: a failed patch throws the copy away.
        try db.execute("PRAGMA journal_mode=MEMORY; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536")
        try db.transaction {
            try checkBase(db, changes)
            try removeTouchedRows(db, changes)
            try replaceDocuments(db, changes)
            try insertRows(db, changes)
            try writeMeta(db, manifest)
        }
    }

    /// Every named base row holds the named passage id; every removed document exists.
    static func checkBase(_ db: Database, _ changes: DeltaChanges) throws {
        let pid = try db.prepare("SELECT pid FROM passages WHERE id = ?1")
        func expect(_ row: Int, _ wanted: String) throws {
            defer { pid.reset() }
            try pid.bind(1, row)
            guard try pid.step() else { throw DeltaError.baseMismatch(reason: "row \(row) (passage \(wanted)) does not exist") }
            let actual = pid.text(0)
            guard actual == wanted else { throw DeltaError.baseMismatch(reason: "row \(row) holds passage \(actual), not \(wanted)") }
        }
        for r in changes.removed { try expect(r.row, r.pid) }
        for r in changes.rows { if let from = r.from { try expect(from, r.pid) } }
        let document = try db.prepare("SELECT 1 FROM documents WHERE id = ?1")
        for id in changes.removedDocuments {
            defer { document.reset() }
            try document.bind(1, id)
            guard try document.step() else { throw DeltaError.baseMismatch(reason: "document \(id) does not exist") }
        }
    }

    /// Copies the base rows that kept passages come from aside, then deletes every touched base
    /// row (removed, moved from, or replaced) from the index, with its old values, and the table.
    static func removeTouchedRows(_ db: Database, _ changes: DeltaChanges) throws {
        try db.execute("""
            CREATE TEMP TABLE delta_touched(id INTEGER PRIMARY KEY);
            CREATE TEMP TABLE delta_from(id INTEGER PRIMARY KEY);
            """)
        let touched = try db.prepare("INSERT OR IGNORE INTO delta_touched(id) VALUES(?1)")
        let from = try db.prepare("INSERT INTO delta_from(id) VALUES(?1)")
        for r in changes.removed { try touched.bind(1, r.row).run() }
        for r in changes.rows {
            try touched.bind(1, r.row).run()
            if let f = r.from {
                try touched.bind(1, f).run()
                try from.bind(1, f).run()
            }
        }
        try db.execute("""
            CREATE TEMP TABLE delta_source AS SELECT id, document_id, ordinal, title, section, text FROM passages
              WHERE id IN (SELECT id FROM delta_from);
            INSERT INTO passages_fts(passages_fts, rowid, title, section, text)
              SELECT 'delete', id, title, section, text FROM passages WHERE id IN (SELECT id FROM delta_touched);
            DELETE FROM passages WHERE id IN (SELECT id FROM delta_touched);
            """)
    }

    static func replaceDocuments(_ db: Database, _ changes: DeltaChanges) throws {
        let delete = try db.prepare("DELETE FROM documents WHERE id = ?1")
        for id in changes.removedDocuments + changes.documents.map(\.id) { try delete.bind(1, id).run() }
        let insert = try db.prepare("INSERT INTO documents(id, path, title) VALUES(?1, ?2, ?3)")
        for d in changes.documents { try insert.bind(1, d.id).bind(2, d.path).bind(3, d.title).run() }
    }

    /// Each listed row into the table and the index: a kept one from its base row's copy with the
    /// fields that changed, an added one as given.
    static func insertRows(_ db: Database, _ changes: DeltaChanges) throws {
        let source = try db.prepare("SELECT document_id, ordinal, title, section, text FROM delta_source WHERE id = ?1")
        let passage = try db.prepare("INSERT INTO passages(id, pid, document_id, ordinal, title, section, text) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        let fts = try db.prepare("INSERT INTO passages_fts(rowid, title, section, text) VALUES(?1, ?2, ?3, ?4)")
        for r in changes.rows {
            var document = r.document ?? 0, ordinal = r.ordinal ?? 0
            var title = r.title ?? "", section = r.section ?? "", text = r.text ?? ""
            if let from = r.from {
                defer { source.reset() }
                try source.bind(1, from)
                guard try source.step() else { throw DeltaError.baseMismatch(reason: "row \(from) does not exist") }
                document = r.document ?? Int(source.int(0))
                ordinal = r.ordinal ?? Int(source.int(1))
                title = r.title ?? source.text(2)
                section = source.text(3)
                text = source.text(4)
            }
            try passage.bind(1, r.row).bind(2, r.pid).bind(3, document).bind(4, ordinal).bind(5, title).bind(6, section).bind(7, text).run()
            try fts.bind(1, r.row).bind(2, title).bind(3, section).bind(4, text).run()
        }
        try db.execute("DROP TABLE delta_source; DROP TABLE delta_from; DROP TABLE delta_touched")
    }

    /// `meta` as the new manifest says (docs/format.md "Passage pack").
    static func writeMeta(_ db: Database, _ m: Manifest) throws {
        typealias K = PackSchema.Meta
        let rows: [(String, String)] = [
            (K.format, PackSchema.format), (K.corpusID, m.id), (K.corpusVersion, m.version.description),
            (K.embedderID, m.embedder.id), (K.embedderDimension, String(m.embedder.dimension)),
            (K.documents, String(m.documents)), (K.passages, String(m.passages)),
        ]
        let meta = try db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)")
        for (k, v) in rows { try meta.bind(1, k).bind(2, v).run() }
    }
}
