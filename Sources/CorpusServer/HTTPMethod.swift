/// A request method. Compared exactly: methods are case-sensitive (RFC 9110 §9.1), so `get` is
/// not `GET`.
struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: String

    init(rawValue: String) { self.rawValue = rawValue }

    static let get = HTTPMethod(rawValue: "GET")
    static let head = HTTPMethod(rawValue: "HEAD")

    var description: String { rawValue }
}
