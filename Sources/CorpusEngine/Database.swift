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
        /// Read-write on an existing file, with the read-only mode's guards (no schema code runs):
        /// the client patching its own copy of a verified pack with a delta.
        case update
    }

    let handle: OpaquePointer
    public let path: String

    public init(path: String, mode: Mode) throws {
        _ = Self.allocationCountsOff
        var db: OpaquePointer?
        let flags: Int32 = switch mode {
        case .readOnly: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        case .create: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        case .update: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let code = db.map { Self.extendedCode(rc, of: $0) } ?? rc
            let systemErrno = db.map { Self.systemErrno(code, of: $0) } ?? 0
            sqlite3_close_v2(db)
            throw SQLiteError(extendedCode: .init(rawValue: code), message: message, operation: "open \(path)", systemErrno: systemErrno)
        }
        handle = db
        self.path = path
        if mode != .create {
            // sqlite.org/security.html: do not run schema-defined code, refuse writes to the schema.
            try configure(SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
            try configure(SQLITE_DBCONFIG_DEFENSIVE, 1)
            try configure(SQLITE_DBCONFIG_ENABLE_TRIGGER, 0)
            try configure(SQLITE_DBCONFIG_ENABLE_VIEW, 0)
        }
        if mode == .readOnly { try execute("PRAGMA query_only = ON") }
    }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite counts every allocation (`SQLITE_CONFIG_MEMSTATUS`, on by default) under a mutex
    /// that every connection of the process shares; nothing here reads the counts. Off, a
    /// build's pack thread spent about 3 % less time per row (the mutex and the counting, in
    /// `perf` of a 100,000-passage build). It can only be set before SQLite initializes, so it
    /// is set before the first connection opens; a later call would be refused and is ignored.
    private static let allocationCountsOff: Void = { _ = csqlite_config_memstatus(0) }()

    private func configure(_ op: Int32, _ value: Int32) throws {
        var out: Int32 = 0
        let rc = csqlite_db_config_int(handle, op, value, &out)
        guard rc == SQLITE_OK else { throw error(rc, "sqlite3_db_config(\(op))") }
    }

    /// The extended code behind `rc` (`sqlite3_extended_errcode`), or `rc` itself when the
    /// connection's last error is another one.
    static func extendedCode(_ rc: Int32, of handle: OpaquePointer) -> Int32 {
        let extended = sqlite3_extended_errcode(handle)
        return extended & 0xFF == rc & 0xFF ? extended : rc
    }

    /// The error for `rc` from the last call on this connection; `quoteMessage` false puts the
    /// code's fixed text in place of SQLite's message, which may quote a bound value.
    func error(_ rc: Int32, _ operation: String, sql: String? = nil, quoteMessage: Bool = true) -> SQLiteError {
        let code = Self.extendedCode(rc, of: handle)
        let message = String(cString: quoteMessage ? sqlite3_errmsg(handle) : sqlite3_errstr(code))
        return SQLiteError(extendedCode: .init(rawValue: code), message: message, sql: sql, operation: operation,
                           systemErrno: Self.systemErrno(code, of: handle))
    }

    /// The errno behind a failure of the file underneath (`sqlite3_system_errno`), 0 for any other
    /// code: after other failures the connection's last errno is stale and says nothing.
    static func systemErrno(_ code: Int32, of handle: OpaquePointer) -> Int32 {
        switch code & 0xFF {
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN: return sqlite3_system_errno(handle)
        default: return 0
        }
    }

    /// Runs one or more statements that return no rows (`sqlite3_exec`): the way to run several on
    /// purpose, which `prepare` refuses.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            let code = Self.extendedCode(rc, of: handle)
            throw SQLiteError(extendedCode: .init(rawValue: code), message: text, sql: sql, operation: "execute",
                              systemErrno: Self.systemErrno(code, of: handle))
        }
    }

    /// Prepares exactly one statement; SQL holding a second one is refused (see `execute`).
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

/// A prepared statement (`sqlite3_prepare_v3`), finalized in `deinit`.
///
/// Every bind's result is checked: a failed one throws, naming the parameter's index, never its
/// value. Once a value is bound, errors carry SQLite's fixed text for the result code rather than
/// its message, which can quote the value (see `SQLiteError.message`).
public final class Statement {
    let handle: OpaquePointer
    let database: Database
    /// As prepared: placeholders, never values.
    public let sql: String
    /// True from the first bind until `reset` clears the bindings.
    private var holdsValues = false

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let refusal: SQLiteError? = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(database.handle, text, -1, 0, &stmt, &tail)
            guard rc == SQLITE_OK, stmt != nil else {
                return rc == SQLITE_OK ? Self.refusal("the SQL holds no statement", sql) : database.error(rc, "prepare", sql: sql)
            }
            return Self.holdsStatement(tail, database) ? Self.refusal("the SQL holds more than one statement; prepare takes one (execute runs several)", sql) : nil
        }
        if let refusal {
            sqlite3_finalize(stmt)
            throw refusal
        }
        handle = stmt!
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// True when `tail` holds more than whitespace, semicolons and comments: SQLite prepares what
    /// it holds and, for those alone, gives no statement back.
    private static func holdsStatement(_ tail: UnsafePointer<CChar>?, _ database: Database) -> Bool {
        guard let tail, tail.pointee != 0 else { return false }
        var next: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, tail, -1, 0, &next, nil)
        sqlite3_finalize(next)
        return rc != SQLITE_OK || next != nil
    }

    private static func refusal(_ message: String, _ sql: String) -> SQLiteError {
        SQLiteError(extendedCode: .misuse, message: message, sql: sql, operation: "prepare")
    }

    /// `sqlite3_bind_*`'s result: the parameter's index in the error, never the value.
    private func checked(_ rc: Int32, _ index: Int32) throws -> Self {
        holdsValues = true
        guard rc == SQLITE_OK else {
            throw SQLiteError(extendedCode: .init(rawValue: rc), message: String(cString: sqlite3_errstr(rc)), sql: sql,
                              operation: "bind parameter \(index)")
        }
        return self
    }

    /// The corresponding C function is `sqlite3_bind_text` (the text is copied, up to a NUL).
    /// `withCString` hands SQLite a native string's own bytes; passing the String itself made a
    /// NUL-terminated copy (`utf8CString`) per bind, about 3 % of a build's pack thread.
    @discardableResult
    public func bind(_ index: Int32, _ value: String) throws -> Self {
        try checked(value.withCString { sqlite3_bind_text(handle, index, $0, -1, csqlite_transient()) }, index)
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int64) throws -> Self {
        try checked(sqlite3_bind_int64(handle, index, value), index)
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int) throws -> Self { try bind(index, Int64(value)) }

    @discardableResult
    public func bind(_ index: Int32, _ value: Double) throws -> Self {
        try checked(sqlite3_bind_double(handle, index, value), index)
    }

    /// Advances; true while there is a row.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, "step", sql: sql, quoteMessage: !holdsValues)
        }
    }

    /// Runs a statement that returns no rows, then resets it for reuse.
    public func run() throws {
        _ = try step()
        reset()
    }

    /// Rewinds the statement and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        holdsValues = false
    }

    /// How many virtual-machine steps the statement has run since it was prepared
    /// (`sqlite3_stmt_status` with `SQLITE_STMTSTATUS_VM_STEP`): the work of a query, untimed.
    public var virtualMachineSteps: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 0)) }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: p)
    }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's UTF-8 bytes without making a String (`sqlite3_column_text`, `sqlite3_column_bytes`),
    /// valid until the next step or reset.
    public func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let p = sqlite3_column_text(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
