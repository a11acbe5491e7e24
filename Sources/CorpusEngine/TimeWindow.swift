import Foundation
import CorpusFormat

/// `--since` / `--until`: only passages whose time falls in the window. A passage's time is its
/// own `passage_meta` `timestamp`, else its document's `document_meta` `timestamp` (docs/format.md,
/// optional tables: imports from other apps carry them). Timestamps are `YYYY-MM-DDTHH:MM:SSZ`,
/// so the window is a text range; a passage without a time is outside every window.
public struct TimeWindow: Sendable, Hashable {
    /// Inclusive bounds, each `YYYY-MM-DDTHH:MM:SSZ`; nil is open on that side.
    public var since: String?
    public var until: String?

    public init(since: String? = nil, until: String? = nil) {
        self.since = since
        self.until = until
    }

    /// Parses a bound: a full timestamp, or a day `YYYY-MM-DD` (its first second for `since`, its
    /// last for `until`). nil when it is neither.
    public static func bound(_ text: String, endOfDay: Bool) -> String? {
        if Timestamp.parse(text) != nil { return text }
        let day = text.utf8
        guard day.count == 10, Timestamp.parse(text + "T00:00:00Z") != nil else { return nil }
        return text + (endOfDay ? "T23:59:59Z" : "T00:00:00Z")
    }
}

extension InstalledCorpus {
    /// The passage rows whose time is inside `window`; empty when the pack has no timestamps.
    static func rows(_ db: Database, in window: TimeWindow) throws -> Set<Int32> {
        do {
            let tables = try db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('document_meta', 'passage_meta')")
            var present = Set<String>()
            while try tables.step() { present.insert(tables.text(0)) }
            let passageTime = present.contains("passage_meta")
                ? "(SELECT value FROM passage_meta pm WHERE pm.passage_id = p.id AND pm.key = 'timestamp')" : "NULL"
            let documentTime = present.contains("document_meta")
                ? "(SELECT value FROM document_meta dm WHERE dm.document_id = p.document_id AND dm.key = 'timestamp')" : "NULL"
            guard !present.isEmpty else { return [] }
            let s = try db.prepare("""
                SELECT id FROM (SELECT p.id AS id, coalesce(\(passageTime), \(documentTime)) AS t FROM passages p) \
                WHERE t IS NOT NULL AND t >= ?1 AND t <= ?2
                """)
            try s.bind(1, window.since ?? "").bind(2, window.until ?? "\u{10FFFF}")
            var rows = Set<Int32>()
            while try s.step() { rows.insert(Int32(truncatingIfNeeded: s.int(0))) }
            return rows
        }
    }
}
