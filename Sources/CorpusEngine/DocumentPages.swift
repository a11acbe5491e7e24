import CorpusFormat

/// Browsing one open corpus: its documents listed a page at a time, a document read a page at a
/// time in reading order, and where a passage sits. Every page reads only its own rows
/// (`ReadingOrder` says which), so memory and work per page are bounded whatever the corpus's size.
extension InstalledCorpus {
    public static let documentsPerPage = 100
    /// A listing page also ends once it has looked at this many passages (for their sections).
    public static let listingPassages = 20_000
    /// A read page holds about this many characters (Unicode scalars) of text, at least one passage.
    public static let pageCharacters = 65_536
    public static let maxPageCharacters = 1 << 20
    /// A read page also ends after this many passages.
    public static let pagePassages = 4_096

    /// The documents from the one at path `from` (the first when nil), at most `limit` of them,
    /// in the pack's document order (docs/engine.md "Reading a document").
    public func documents(from: String? = nil, limit: Int = documentsPerPage) throws -> DocumentList {
        if let from { try Self.checkPath(from) }
        return try browsing { db, order in
            var first: Int64 = .min
            if let from { first = try documentID(db, path: from).id }
            let docs = try db.prepare("SELECT id, path, title FROM documents WHERE id >= ?1 ORDER BY id LIMIT ?2")
            try docs.bind(1, first).bind(2, max(1, limit) + 1)
            let passage = try db.prepare("SELECT pid, section FROM passages WHERE id = ?1")
            let meta = order.documentMeta ? try db.prepare("SELECT key, value FROM document_meta WHERE document_id = ?1 AND key IN ('timestamp', 'genre', 'domain')") : nil
            var out: [DocumentList.Document] = []
            var looked = 0
            while try docs.step() {
                let id = docs.int(0), path = docs.text(1)
                if out.count >= max(1, limit) || looked >= Self.listingPassages { return DocumentList(documents: out, next: path) }
                let rows = order.rows(of: id)
                var sections: [DocumentList.Section] = []
                for row in rows {
                    defer { passage.reset() }
                    try passage.bind(1, Int64(row))
                    guard try passage.step() else { continue }
                    let section = passage.text(1)
                    if sections.last?.title != section { sections.append(.init(title: section, passage: passage.text(0))) }
                }
                looked += rows.count
                var document = DocumentList.Document(path: path, title: docs.text(2), sections: sections, passages: rows.count)
                if let meta {
                    defer { meta.reset() }
                    try meta.bind(1, id)
                    while try meta.step() {
                        switch meta.text(0) {
                        case "timestamp": document.time = meta.text(1)
                        default: document.group = document.group ?? meta.text(1)
                        }
                    }
                }
                out.append(document)
            }
            return DocumentList(documents: out, next: nil)
        }
    }

    /// A page of document `path`'s text: from its start; from passage `from` (a page's `next`); or
    /// the page that lands on passage `at` (a search hit): from the start of its section when that
    /// is within half a page before it, else from a little before it.
    public func read(document path: String, at: String? = nil, from: String? = nil,
                     characters: Int = pageCharacters) throws -> DocumentText {
        try Self.checkPath(path)
        for id in [at, from].compactMap({ $0 }) {
            if let reason = BrowseArgument.passageIDRefusal(id) { throw EngineError.invalidBrowseRequest(reason) }
        }
        if at != nil && from != nil { throw EngineError.invalidBrowseRequest("at and from are one or the other") }
        let budget = min(max(1, characters), Self.maxPageCharacters)
        return try browsing { db, order in
            let document = try documentID(db, path: path)
            let rows = order.rows(of: document.id)
            let fetch = try db.prepare("SELECT pid, section, text FROM passages WHERE id = ?1")
            func passage(_ i: Int) throws -> (pid: String, section: String, text: String) {
                defer { fetch.reset() }
                try fetch.bind(1, Int64(rows[i]))
                guard try fetch.step() else { throw EngineError.packInconsistent(corpus: name, reason: "passage row \(rows[i]) is gone") }
                return (fetch.text(0), fetch.text(1), fetch.text(2))
            }
            var start = rows.startIndex
            if let id = at ?? from {
                start = try index(of: id, in: rows, db: db, document: path)
                if at != nil {
                    let section = try passage(start).section
                    var before = 0
                    while start > rows.startIndex {
                        let p = try passage(start - 1)
                        before += p.text.scalarCount
                        guard p.section == section, before <= budget / 2 else { break }
                        start -= 1
                    }
                }
            }
            var page = PageBuilder(cutsOverlap: order.sourceChunks)
            if start > rows.startIndex {
                let p = try passage(start - 1)
                if try p.section == passage(start).section { page.continueSection(p.section, after: p.text) }
            }
            var i = start
            while i < rows.endIndex {
                let p = try passage(i)
                // A page full of passages takes no more text (only a passage that adds none).
                let full = page.passages >= Self.pagePassages
                if !page.add(id: p.pid, section: p.section, text: p.text, budget: full ? 0 : budget) {
                    return DocumentText(document: path, title: document.title, sections: page.sections, next: p.pid)
                }
                i += 1
            }
            return DocumentText(document: path, title: document.title, sections: page.sections, next: nil)
        }
    }

    /// Where passage `id` sits: its document, section and place in the document's reading order.
    public func locate(passage id: String) throws -> PassageLocation {
        if let reason = BrowseArgument.passageIDRefusal(id) { throw EngineError.invalidBrowseRequest(reason) }
        return try browsing { db, order in
            let s = try db.prepare("SELECT p.id, p.section, d.id, d.path, d.title FROM passages p JOIN documents d ON d.id = p.document_id WHERE p.pid = ?1")
            try s.bind(1, id)
            guard try s.step() else { throw EngineError.passageNotFound(corpus: name, passage: id, document: nil) }
            let row = Int32(truncatingIfNeeded: s.int(0))
            let rows = order.rows(of: s.int(2))
            let position = rows.firstIndex(of: row).map { $0 - rows.startIndex } ?? 0
            return PassageLocation(passage: id, document: s.text(3), title: s.text(4), section: s.text(1), position: position)
        }
    }

    private static func checkPath(_ path: String) throws {
        if let reason = BrowseArgument.documentPathRefusal(path) { throw EngineError.invalidBrowseRequest(reason) }
    }

    /// `body` with the pack and its reading order (made once per open corpus), under the
    /// connection's mutex like every query; SQLite's errors named for this corpus.
    private func browsing<T: Sendable>(_ body: @Sendable (Database, ReadingOrder) throws -> T) throws -> T {
        do {
            return try connection.withLock { conn in
                let order = try readingOrder.withLock { cached in
                    if let cached { return cached }
                    let made = try ReadingOrder(conn.db)
                    cached = made
                    return made
                }
                return try body(conn.db, order)
            }
        } catch let e as SQLiteError {
            throw EngineError.sqlite(corpus: name, e)
        }
    }

    /// The id and title of the document at `path`, matched against the pack's paths only.
    private func documentID(_ db: Database, path: String) throws -> (id: Int64, title: String) {
        let s = try db.prepare("SELECT id, title FROM documents WHERE path = ?1")
        try s.bind(1, path)
        guard try s.step() else { throw EngineError.documentNotFound(corpus: name, document: path) }
        return (s.int(0), s.text(1))
    }

    /// The index in `rows` (one document's) of passage `id`; not found when it is another's.
    private func index(of id: String, in rows: ArraySlice<Int32>, db: Database, document: String) throws -> Int {
        let s = try db.prepare("SELECT id FROM passages WHERE pid = ?1")
        try s.bind(1, id)
        guard try s.step(), let i = rows.firstIndex(of: Int32(truncatingIfNeeded: s.int(0))) else {
            throw EngineError.passageNotFound(corpus: name, passage: id, document: document)
        }
        return i
    }
}
