import Foundation

/// A failed SQLite call: its result code (primary and extended), SQLite's message, the SQL of the
/// statement it belongs to and what we were doing. Never a bound value: see `message`.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`, sqlite.org/rescode.html).
    public let extendedCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`). For a statement with values bound it is the fixed text
    /// of the result code (`sqlite3_errstr`) instead: SQLite's own message can quote a bound value
    /// (FTS5 names the term of a query it cannot parse, `VACUUM INTO` the file it cannot open).
    public let message: String
    /// The SQL of the statement or `execute` call that failed, as written (placeholders, not values).
    public let sql: String?
    /// What was being done: `open PATH`, `prepare`, `bind parameter 2`, `step`, `execute`, …
    public let operation: String
    /// The errno of the system call that failed (`sqlite3_system_errno`) for a failure of the file
    /// underneath (`SQLITE_IOERR`, `SQLITE_FULL`, `SQLITE_CANTOPEN`); 0 otherwise or when unknown.
    public let systemErrno: Int32

    /// The primary result code: the low 8 bits of the extended one.
    public var code: ResultCode { extendedCode.primary }

    public init(extendedCode: ResultCode, message: String, sql: String? = nil, operation: String, systemErrno: Int32 = 0) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.operation = operation
        self.systemErrno = systemErrno
    }

    /// True when the volume under the database ran out of room: `SQLITE_FULL` (SQLite's answer to
    /// ENOSPC), or an I/O error whose write failed with EDQUOT or EFBIG (a quota or a file-size
    /// limit), which SQLite reports as `SQLITE_IOERR_WRITE` and friends.
    public var isOutOfSpace: Bool {
        switch code {
        case .full: return true
        case .ioError: return [ENOSPC, EDQUOT, EFBIG].contains(systemErrno)
        default: return false
        }
    }

    /// One line: the SQL's whitespace runs become single spaces.
    public var description: String {
        let statement = sql.map { " in `\(Self.oneLine($0))`" } ?? ""
        return "\(operation): \(message) (\(extendedCode))\(statement)"
    }

    static func oneLine(_ sql: String) -> String {
        sql.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
