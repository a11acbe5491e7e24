import Foundation
import CorpusEngine

/// The FTS5 query sanitiser (`FTSQuery`): whatever a user types must become expressions SQLite's
/// FTS5 parser accepts. Every expression the engine's search ladder can build from the input
/// (all terms, all but one, any term) is run as a MATCH against a real in-memory FTS5 table with
/// the packs' tokenizer (docs/engine.md); any SQLite error is a failure. Also: at most
/// `maxTokens` tokens, none empty, none repeated (case-insensitively).
func fuzzFTSQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let text = input.restText()
    let tokens = FTSQuery.tokens(text)
    fuzzAssert(tokens.count <= FTSQuery.maxTokens, "\(tokens.count) tokens")
    fuzzAssert(!tokens.contains(where: \.isEmpty), "an empty token")
    fuzzAssert(Set(tokens.map { $0.lowercased() }).count == tokens.count, "a repeated token")
    // Each distinct expression is checked once (the content tokens are often all the tokens, and
    // one token's "all" and "any" are the same): SQLite's allocations under AddressSanitizer are
    // most of an input's time.
    let content = FTSQuery.contentTokens(tokens)
    var checked = Set<String>()
    for list in content == tokens ? [tokens] : [tokens, content] {
        for expression in [FTSQuery.allTerms(list), FTSQuery.allButOne(list), FTSQuery.anyTerm(list)].compactMap({ $0 })
        where checked.insert(expression).inserted {
            do {
                let statement = FTSTable.match
                defer { statement.reset() }
                _ = try statement.bind(1, expression)
                while try statement.step() {}
            } catch {
                fuzzAssert(false, "FTS5 refused \(expression.debugDescription) made from \(text.debugDescription): \(error)")
            }
        }
    }
    return 0
}

/// An in-memory FTS5 table like a pack's, with a few rows so that MATCH runs to the end. The
/// statement counts the matches rather than ranking them as the engine does: FTS5 parses the
/// expression (and reports its errors) when the MATCH is evaluated, and bm25 ordering adds work
/// but no parsing.
enum FTSTable {
    nonisolated(unsafe) static let database: Database = {
        let db = try! Database(path: ":memory:", mode: .create)
        try! db.execute("CREATE VIRTUAL TABLE t USING fts5(title, section, text, tokenize='porter unicode61 remove_diacritics 2')")
        try! db.execute("INSERT INTO t VALUES ('Tides', 'Harbour', 'the tide comes in over the shoal'), ('Knots', '', 'bowline and reef knot near the pier'), ('日本', 'राम', 'ภาษาไทย naïve café')")
        return db
    }()
    nonisolated(unsafe) static let match: Statement = try! database.prepare("SELECT count(*) FROM t WHERE t MATCH ?1")
}

func initializeFTSQuery(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        let queries = [
            "tide AND shoal", "\"unbalanced", "NEAR(a b, 3) OR NOT c*", "col:value ^start +plus -minus", "(((", "to be or not to be",
            "日本語の検索", "राम की कथा", "naïve café e\u{301}", "emoji 🎉 ZWJ 👩‍👩‍👧 flags 🇫🇷", "a b c d e f g h i j",
            "x\u{0}y\u{7}z", "ǅungla ⅷ ²³", "AND OR NOT NEAR",
        ]
        return queries.enumerated().map { ("query-\($0.offset)", Array($0.element.utf8)) }
    }
    _ = FTSTable.match
    return 0
}
