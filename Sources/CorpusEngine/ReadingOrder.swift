/// A corpus's passages in reading order: for each document, its passage rows by `ordinal`.
///
/// The pack has no index on `(document_id, ordinal)` and is opened read-only, so each document's
/// passages would cost a scan of the whole passages table. One scan, made at the first browse of
/// an open corpus, keeps the rows (4 bytes a passage, no text: 1.5 MB for 364,000 passages) and
/// where each document's run of them is; every page after it reads only its own passages.
struct ReadingOrder: Sendable {
    /// Passage rows, document after document, each document's in `ordinal` order (then row).
    let rows: [Int32]
    /// Each document id's run in `rows`.
    let runs: [Int64: Range<Int>]
    /// `meta` `passage_ids` = `source`: the passages are another app's own chunks, which may overlap.
    let sourceChunks: Bool
    /// The pack has the optional `document_meta` table (a time, a genre or a website per document).
    let documentMeta: Bool

    static let rowsSQL = "SELECT document_id, id FROM passages ORDER BY document_id, ordinal, id"

    init(_ db: Database) throws {
        var rows: [Int32] = []
        var runs: [Int64: Range<Int>] = [:]
        let s = try db.prepare(Self.rowsSQL)
        var current: Int64?
        var start = 0
        while try s.step() {
            let document = s.int(0)
            if document != current {
                if let current { runs[current] = start..<rows.count }
                current = document
                start = rows.count
            }
            rows.append(Int32(truncatingIfNeeded: s.int(1)))
        }
        if let current { runs[current] = start..<rows.count }
        self.rows = rows
        self.runs = runs
        sourceChunks = try db.scalarText("SELECT value FROM meta WHERE key = '\(PackSchema.Meta.passageIDs)'") == "source"
        documentMeta = try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'document_meta'") == 1
    }

    /// The rows of document `id` in reading order (empty for a document without passages).
    func rows(of id: Int64) -> ArraySlice<Int32> {
        runs[id].map { rows[$0] } ?? []
    }
}
