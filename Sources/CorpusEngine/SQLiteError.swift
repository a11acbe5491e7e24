/// A failed SQLite call: the result code, SQLite's message, and what we were doing.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let operation: String

    public var description: String { "\(operation): \(message) (SQLite code \(code))" }
}
