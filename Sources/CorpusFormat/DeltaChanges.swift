import Foundation

/// The `changes.json` member of a delta: what turns the rows of the base version's pack into the
/// rows of the new version's (docs/format.md "Delta changes").
///
/// Rows are `passages.id`, which is also the row of `vectors.bin`. A new row is either listed here
/// or was the base's row at the same place, unchanged. A listed row is *kept* (it names the base
/// row `from` holding the same passage id, and the fields that changed) or *added* (every field,
/// and its vector is the next row of the delta's `vectors.bin`). Base rows not kept anywhere are
/// listed in `removed`, with their passage ids, so a client can tell a delta made for another base.
public struct DeltaChanges: Codable, Hashable, Sendable {
    public struct Document: Codable, Hashable, Sendable {
        public var id: Int
        public var path: String
        public var title: String

        public init(id: Int, path: String, title: String) {
            self.id = id
            self.path = path
            self.title = title
        }
    }

    public struct Removed: Codable, Hashable, Sendable {
        public var row: Int
        public var pid: String

        public init(row: Int, pid: String) {
            self.row = row
            self.pid = pid
        }
    }

    /// One row of the new version. `from` nil: added, every optional field present. `from` set:
    /// the base row holding `pid`, with `document`, `ordinal` and `title` present only when they
    /// changed (`section` and `text` are part of the passage id, so a kept row never changes them).
    public struct Row: Codable, Hashable, Sendable {
        public var row: Int
        public var pid: String
        public var from: Int?
        public var document: Int?
        public var ordinal: Int?
        public var title: String?
        public var section: String?
        public var text: String?

        public init(row: Int, pid: String, from: Int? = nil, document: Int? = nil, ordinal: Int? = nil, title: String? = nil,
                    section: String? = nil, text: String? = nil) {
            self.row = row
            self.pid = pid
            self.from = from
            self.document = document
            self.ordinal = ordinal
            self.title = title
            self.section = section
            self.text = text
        }

        public var isAdded: Bool { from == nil }
    }

    /// Document ids of the base that the new version no longer has.
    public var removedDocuments: [Int]
    /// Documents new in the new version, or whose path or title changed.
    public var documents: [Document]
    public var removed: [Removed]
    /// Ascending by `row`.
    public var rows: [Row]

    enum CodingKeys: String, CodingKey {
        case documents, removed, rows
        case removedDocuments = "removed_documents"
    }

    public init(removedDocuments: [Int] = [], documents: [Document] = [], removed: [Removed] = [], rows: [Row] = []) {
        self.removedDocuments = removedDocuments
        self.documents = documents
        self.removed = removed
        self.rows = rows
    }

    public var addedCount: Int { rows.lazy.filter(\.isAdded).count }

    public func canonicalBytes() throws -> Data { try CanonicalJSON.encode(self) }

    /// Decodes and checks the shape the applier relies on: rows ascending and unique, below
    /// `passages` (the new version's count); added rows complete, kept rows changing no part of
    /// their passage id; base rows (`from`, `removed`) named once each; ids positive.
    public static func decode(_ data: Data, passages: Int) throws -> DeltaChanges {
        let c = try CanonicalJSON.decode(DeltaChanges.self, from: data, what: "delta changes")
        func bad(_ reason: String) -> FormatError { .malformed(what: "delta changes", reason: reason) }
        var previous = -1
        var bases = Set<Int>()
        for r in c.rows {
            guard r.row > previous, r.row < passages else { throw bad("row \(r.row) is out of order or past the \(passages) rows") }
            previous = r.row
            if let from = r.from {
                guard from >= 0, bases.insert(from).inserted else { throw bad("base row \(from) is named twice") }
                guard r.section == nil, r.text == nil else { throw bad("kept row \(r.row) changes its section or text") }
            } else {
                guard r.document != nil, r.ordinal != nil, r.title != nil, r.section != nil, r.text != nil else {
                    throw bad("added row \(r.row) lacks a field")
                }
            }
            if let d = r.document, d < 1 { throw bad("row \(r.row) names document \(d)") }
        }
        for r in c.removed {
            guard r.row >= 0, bases.insert(r.row).inserted else { throw bad("base row \(r.row) is named twice") }
        }
        guard c.documents.allSatisfy({ $0.id >= 1 }), c.removedDocuments.allSatisfy({ $0 >= 1 }) else { throw bad("a document id below 1") }
        return c
    }
}
