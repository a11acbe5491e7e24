import Foundation
import Testing
import CorpusTestSupport
@testable import CorpusEngine

/// `findExact` (the literal Find mode) and `SearchOptions.timeWindow` over document and passage
/// timestamps, on real packs.
@Suite struct FindAndTimeTests {
    static func lighthouse(_ home: TempDirectory) throws -> String {
        try PackFixture(id: "lights", texts: [
            "keeper.md": ["The keeper rotates the lamp every night before the tide turns.",
                          "Rotating the lamp by hand is slow; the keeper oils the gear first."],
            "log.md": ["Log: the Lamp was lit at dusk. The keeper ROTATES THE LAMP twice."],
        ]).install(home: home.path)
    }

    /// Adds `document_meta` / `passage_meta` timestamps as an importer writes them (docs/format.md).
    static func stamp(_ folder: String, documents: [String: String], passages: [Int: String] = [:]) throws {
        let db = try Database(path: folder + "/pack.sqlite", mode: .create)
        try db.execute("""
            CREATE TABLE document_meta(document_id INTEGER NOT NULL REFERENCES documents(id), key TEXT NOT NULL,
              value TEXT NOT NULL, PRIMARY KEY(document_id, key)) WITHOUT ROWID;
            CREATE TABLE passage_meta(passage_id INTEGER NOT NULL REFERENCES passages(id), key TEXT NOT NULL,
              value TEXT NOT NULL, PRIMARY KEY(passage_id, key)) WITHOUT ROWID;
            """)
        for (path, time) in documents {
            try db.execute("INSERT INTO document_meta SELECT id, 'timestamp', '\(time)' FROM documents WHERE path = '\(path)'")
        }
        for (row, time) in passages { try db.execute("INSERT INTO passage_meta VALUES (\(row), 'timestamp', '\(time)')") }
    }

    @Test func anExactPhraseIsFoundLiterallyNotThroughStemsAndTheMatchIsMarked() async throws {
        let home = TempDirectory("exact")
        try Self.lighthouse(home)
        let library = CorpusLibrary(home: home.path)
        let hits = try await library.findExact("rotates the lamp", options: SearchOptions(k: 10)).hits
        // "Rotating the lamp" matches the FTS5 phrase (porter stems it) but not the literal text.
        #expect(Set(hits.map(\.text)) == ["The keeper rotates the lamp every night before the tide turns.",
                                          "Log: the Lamp was lit at dusk. The keeper ROTATES THE LAMP twice."])
        #expect(hits.allSatisfy { $0.snippet.contains("«rotates the lamp»") || $0.snippet.contains("«ROTATES THE LAMP»") }, "\(hits.map(\.snippet))")
        #expect(hits.allSatisfy { $0.vectorRank == nil && $0.lexicalRank != nil })
        // The plain search does find the stemmed passage: only the exact mode narrows.
        let plain = try await library.search("rotates the lamp", options: SearchOptions(k: 10, lexicalOnly: true))
        #expect(plain.contains { $0.text.hasPrefix("Rotating the lamp") })
        // FTS5 syntax and quotes in a phrase are words, never syntax.
        #expect(try await library.findExact("\"lamp\" OR NEAR(", options: SearchOptions()).hits.isEmpty)
        #expect(try await library.findExact("   ", options: SearchOptions()).hits.isEmpty)
    }

    @Test func theHighlightKeepsContextAndMarksWhereTextWasCut() {
        let text = String(repeating: "alpha beta ", count: 20) + "the lamp turns" + String(repeating: " gamma delta", count: 20)
        let r = text.range(of: "the lamp")!
        let s = InstalledCorpus.highlight(text, r)
        #expect(s.hasPrefix("…") && s.hasSuffix("…") && s.contains("«the lamp» turns"), "\(s)")
        #expect(s.count < 160)
    }

    @Test func aTimeWindowKeepsOnlyPassagesStampedInsideIt() async throws {
        let home = TempDirectory("window")
        let folder = try Self.lighthouse(home)
        // keeper.md is from June, log.md from August; passage row 0 (keeper.md's first) has its own
        // time, in May, which wins over its document's.
        try Self.stamp(folder, documents: ["keeper.md": "2026-06-10T08:00:00Z", "log.md": "2026-08-01T12:00:00Z"],
                       passages: [0: "2026-05-01T00:00:00Z"])
        let library = CorpusLibrary(home: home.path)
        func docs(_ since: String?, _ until: String?) async throws -> [String] {
            var o = SearchOptions(k: 10)
            o.timeWindow = TimeWindow(since: since, until: until)
            return try await library.search("keeper lamp", options: o).map { "\($0.document)#\($0.text.prefix(8))" }.sorted()
        }
        #expect(try await docs("2026-07-01T00:00:00Z", nil) == ["log.md#Log: the"])
        #expect(try await docs("2026-06-01T00:00:00Z", "2026-06-30T23:59:59Z") == ["keeper.md#Rotating"])
        #expect(try await docs(nil, "2026-05-31T00:00:00Z") == ["keeper.md#The keep"])
        #expect(try await docs("2027-01-01T00:00:00Z", nil).isEmpty)
        // The exact mode honours the window too.
        var o = SearchOptions()
        o.timeWindow = TimeWindow(since: "2026-07-01T00:00:00Z")
        #expect(try await library.findExact("rotates the lamp", options: o).hits.map(\.document) == ["log.md"])
    }

    @Test func aPackWithoutTimestampsHasNothingInAnyWindow() async throws {
        let home = TempDirectory("no-window")
        try Self.lighthouse(home)
        var o = SearchOptions()
        o.timeWindow = TimeWindow(since: "1970-01-01T00:00:00Z")
        #expect(try await CorpusLibrary(home: home.path).search("keeper", options: o).isEmpty)
        #expect(try await CorpusLibrary(home: home.path).search("keeper", options: SearchOptions()).count == 3)
    }

    @Test(arguments: [("2026-06-01", false, "2026-06-01T00:00:00Z"), ("2026-06-01", true, "2026-06-01T23:59:59Z"),
                      ("2026-06-01T10:00:00Z", true, "2026-06-01T10:00:00Z")])
    func boundsAcceptADayOrATimestamp(text: String, endOfDay: Bool, expected: String) {
        #expect(TimeWindow.bound(text, endOfDay: endOfDay) == expected)
    }

    @Test(arguments: ["yesterday", "2026-13-01", "2026-06-01 10:00", "", "2026-06-01T10:00:00+02:00"])
    func otherBoundsAreRefused(text: String) {
        #expect(TimeWindow.bound(text, endOfDay: false) == nil)
    }
}
