import Foundation
import Testing
import CorpusEngine
import CSQLite

/// The SQLite wrapper's own checks (GRDB `Statement.swift` style): every bind's result, one
/// statement per `prepare`, and errors that carry the result codes and the SQL but never a bound value.
@Suite struct DatabaseWrapperTests {
    /// Looks like a credential, so a leak into error text would be one.
    static let secret = "sk_live_4242SECRET4242"

    static func scratch() throws -> Database {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE t(x TEXT UNIQUE); CREATE VIRTUAL TABLE f USING fts5(a)")
        return db
    }

    @Test func aBindToAParameterTheStatementLacksThrows() throws {
        let db = try Self.scratch()
        let s = try db.prepare("SELECT ?1, ?2")
        let error = #expect(throws: SQLiteError.self) { try s.bind(3, Self.secret) }
        #expect(error?.description.contains("parameter 3") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.secret) == false)
        #expect(error == SQLiteError(extendedCode: .range, message: "column index out of range", sql: "SELECT ?1, ?2",
                                     operation: "bind parameter 3"))
        // Each kind of value is checked the same way.
        #expect(throws: SQLiteError.self) { try s.bind(0, 42) }
        #expect(throws: SQLiteError.self) { try s.bind(3, Int64(42)) }
        #expect(throws: SQLiteError.self) { try s.bind(-1, 2.5) }
        // A chain stops at the failed bind.
        let chained = #expect(throws: SQLiteError.self) { _ = try s.bind(1, "a").bind(5, "b").step() }
        #expect(chained?.operation == "bind parameter 5")
    }

    @Test func prepareRefusesASecondStatement() throws {
        let db = try Self.scratch()
        let error = #expect(throws: SQLiteError.self) { _ = try db.prepare("SELECT 1; DELETE FROM t") }
        #expect(error?.description.contains("more than one statement") == true, "\(String(describing: error))")
        #expect(error?.extendedCode == .misuse && error?.sql == "SELECT 1; DELETE FROM t" && error?.operation == "prepare")
        // A tail that is not even a valid statement is refused alike.
        #expect(throws: SQLiteError.self) { _ = try db.prepare("SELECT 1; garbage") }
        // A tail of whitespace, semicolons and comments is no second statement.
        let s = try db.prepare("SELECT 7; -- a note\n ; /* and another */ \n")
        #expect(try s.step() && s.int(0) == 7)
        // execute is the way to run several on purpose.
        try db.execute("INSERT INTO t VALUES('a'); INSERT INTO t VALUES('b')")
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 2)
    }

    /// FTS5 names the part of a bound query it cannot parse ("no such column: sk_live_…"), and
    /// VACUUM INTO names its bound file: SQLite's own message may quote a bound value.
    @Test func theDescriptionOfAFailedStatementNeverHoldsABoundValue() throws {
        let db = try Self.scratch()
        let fts = try db.prepare("SELECT rowid FROM f WHERE f MATCH ?1")
        let ftsError = #expect(throws: SQLiteError.self) { _ = try fts.bind(1, Self.secret + ":x").step() }
        #expect(ftsError.map { !$0.description.contains("sk_live") } == true, "\(String(describing: ftsError))")
        #expect(ftsError?.description.contains("SELECT rowid FROM f WHERE f MATCH ?1") == true, "the SQL names the statement")
        #expect(ftsError?.message == "SQL logic error" && ftsError?.code == .error)

        let vacuum = try db.prepare("VACUUM INTO ?")
        let path = "/nonexistent-\(Self.secret)/pack.sqlite"
        let vacuumError = #expect(throws: SQLiteError.self) { try vacuum.bind(1, path).run() }
        #expect(vacuumError.map { !$0.description.contains(Self.secret) } == true, "\(String(describing: vacuumError))")
        #expect(vacuumError?.code == .cannotOpen)

        // Without values bound, SQLite's own message is kept: it names what went wrong.
        let plain = #expect(throws: SQLiteError.self) { _ = try db.prepare("SELECT x FROM nowhere").step() }
        #expect(plain?.message == "no such table: nowhere" && plain?.sql == "SELECT x FROM nowhere")
    }

    @Test func anErrorCarriesThePrimaryAndTheExtendedCodeMatchableAsPatterns() throws {
        let db = try Self.scratch()
        let insert = try db.prepare("INSERT INTO t VALUES(?1)")
        try insert.bind(1, Self.secret).run()
        let error = #expect(throws: SQLiteError.self) { try insert.bind(1, Self.secret).run() }
        let e = try #require(error)
        #expect(e.extendedCode == .constraintUnique && e.code == .constraint)
        #expect(e.sql == "INSERT INTO t VALUES(?1)" && e.operation == "step")
        // A primary code matches its extended codes; an extended code only itself.
        switch e.extendedCode {
        case .constraintPrimaryKey: Issue.record("matched another extended code")
        case .constraint: break
        default: Issue.record("the primary code did not match its extended one")
        }
        #expect(!(SQLiteError.ResultCode.constraintUnique ~= .constraint))
        #expect(SQLiteError.ResultCode(rawValue: 10 | 22 << 8).description == "SQLITE_IOERR extended 5642")
        #expect(e.description == "step: constraint failed (SQLITE_CONSTRAINT_UNIQUE) in `INSERT INTO t VALUES(?1)`")
    }

    @Test func executeAndOpenFailuresCarryTheirCodeAndSQL() throws {
        let db = try Self.scratch()
        let sql = "INSERT INTO t VALUES('a');\n  INSERT INTO t VALUES('a')"
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql) }
        #expect(error?.extendedCode == .constraintUnique && error?.sql == sql && error?.operation == "execute")
        #expect(error?.message == "UNIQUE constraint failed: t.x")
        // The description is one line.
        #expect(error?.description.contains("\n") == false)
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1, "sqlite3_exec stops at the failing statement")

        let missing = "/nonexistent-\(UUID().uuidString)/pack.sqlite"
        let open = #expect(throws: SQLiteError.self) { _ = try Database(path: missing, mode: .readOnly) }
        #expect(open?.code == .cannotOpen && open?.operation == "open \(missing)" && open?.sql == nil)
    }
}

/// SQLite's allocation counts are off for every connection (`Database.allocationCountsOff`): a
/// build's pack thread no longer takes SQLite's process-wide memory mutex at every allocation.
@Suite struct DatabaseAllocationCountTests {
    @Test func sqliteKeepsNoAllocationCounts() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE t(x BLOB); INSERT INTO t VALUES(zeroblob(1000000)); CREATE VIRTUAL TABLE f USING fts5(a)")
        try db.prepare("INSERT INTO f(a) VALUES(?)").bind(1, String(repeating: "word ", count: 10_000)).run()
        // With the counts on, this is at least the megabyte the rows above hold in memory.
        #expect(sqlite3_memory_used() == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM f WHERE f MATCH 'word'") == 1)
    }
}

/// Binding text hands SQLite the string's bytes up to its first NUL, native or bridged, ASCII or not.
@Suite struct DatabaseTextBindTests {
    @Test(arguments: ["", "plain", "café 東京", "before\u{0}after", String(repeating: "word ", count: 20_000)])
    func boundTextReadsBackUpToItsFirstNUL(_ text: String) throws {
        let db = try Database(path: ":memory:", mode: .create)
        let s = try db.prepare("SELECT ?1, length(CAST(?1 AS BLOB))")
        try s.bind(1, text)
        #expect(try s.step())
        let expected = String(text.prefix { $0 != "\u{0}" })
        #expect(s.text(0) == expected && s.int(1) == Int64(expected.utf8.count))
    }
}
