/// An error of another layer kept as it was thrown, inside a `SyncError` that has no case of its
/// own for it: callers can still ask what it was (`cause.error is …`), and nothing is flattened
/// into a string on the way up.
public struct UnderlyingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let error: any Error

    public init(_ error: any Error) { self.error = error }

    public var description: String { String(describing: error) }

    /// The same type, reading the same: errors in general are not `Equatable`, and `SyncError` is.
    public static func == (a: UnderlyingError, b: UnderlyingError) -> Bool {
        type(of: a.error) == type(of: b.error) && a.description == b.description
    }
}
