import Foundation
internal import CSQLite

/// One SQLite connection (`sqlite3_open_v2`), closed in `deinit` even when opening failed.
/// Not Sendable: a connection is used from one place at a time.
public final class Database {
    public enum Mode: Sendable {
        /// Read-only, safe for files from elsewhere: `trusted_schema=OFF`, defensive mode, no extension loading.
        case readOnly
        /// Read-write, creating the file if needed (the publisher building a pack).
        case create
    }

    let handle: OpaquePointer
    public let path: String

    public init(path: String, mode: Mode) throws {
        var db: OpaquePointer?
        let flags: Int32 = switch mode {
        case .readOnly: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        case .create: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message, operation: "open \(path)")
        }
        handle = db
        self.path = path
        if mode == .readOnly {
            // sqlite.org/security.html: do not run schema-defined code, refuse writes to the schema.
            try configure(SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
            try configure(SQLITE_DBCONFIG_DEFENSIVE, 1)
            try configure(SQLITE_DBCONFIG_ENABLE_TRIGGER, 0)
            try configure(SQLITE_DBCONFIG_ENABLE_VIEW, 0)
            try execute("PRAGMA query_only = ON")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    private func configure(_ op: Int32, _ value: Int32) throws {
        var out: Int32 = 0
        let rc = csqlite_db_config_int(handle, op, value, &out)
        guard rc == SQLITE_OK else { throw error(rc, "sqlite3_db_config(\(op))") }
    }

    func error(_ rc: Int32, _ operation: String) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), operation: operation)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text, operation: "execute")
        }
    }

    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs `body` inside BEGIN … COMMIT, rolling back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Convenience: the first column of the first row, as text.
    public func scalarText(_ sql: String) throws -> String? {
        let s = try prepare(sql)
        return try s.step() ? s.text(0) : nil
    }

    public func scalarInt(_ sql: String) throws -> Int64? {
        let s = try prepare(sql)
        return try s.step() ? s.int(0) : nil
    }
}

@available(*, unavailable)
extension Database: Sendable {}

/// A prepared statement (`sqlite3_prepare_v2`), finalized in `deinit`.
public final class Statement {
    let handle: OpaquePointer
    let database: Database

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            throw database.error(rc, "prepare")
        }
        handle = stmt
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    @discardableResult
    public func bind(_ index: Int32, _ value: String) -> Self {
        sqlite3_bind_text(handle, index, value, -1, csqlite_transient())
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int64) -> Self {
        sqlite3_bind_int64(handle, index, value)
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int) -> Self { bind(index, Int64(value)) }

    @discardableResult
    public func bind(_ index: Int32, _ value: Double) -> Self {
        sqlite3_bind_double(handle, index, value)
        return self
    }

    /// Advances; true while there is a row.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, "step")
        }
    }

    /// Runs a statement that returns no rows, then resets it for reuse.
    public func run() throws {
        _ = try step()
        reset()
    }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: p)
    }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
}

@available(*, unavailable)
extension Statement: Sendable {}
