import Foundation

/// Queries a SQLite file with the real `sqlite3` tool, read-only: what any reader of a pack gets.
public enum SQLiteShell {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// The rows `sql` returns, each row's columns joined by `|` (sqlite3's list mode).
    public static func rows(_ database: String, _ sql: String) throws -> [String] {
        let r = try ProcessRunner.run("sqlite3", ["-readonly", "-batch", "-noheader", "-newline", "\u{1E}", database, sql])
        guard r.status == 0 else { throw Failure(description: "sqlite3 \(sql): \(r.stderr)") }
        return r.stdout.split(separator: "\u{1E}", omittingEmptySubsequences: true).map(String.init)
    }
}
