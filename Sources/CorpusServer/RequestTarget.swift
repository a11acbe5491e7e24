import CorpusFormat

/// The path of a request, decoded exactly once and checked before it can name a file.
///
/// libmicrohttpd hands the access handler a URL it has already percent-decoded into a C string,
/// so `%00` would silently truncate it and the raw form is lost. The server therefore takes the
/// raw request-target from the URI log callback and decodes it here, once: `%2e%2e` becomes `..`
/// and is refused like `..`; a `%` left after decoding (from `%25`) is an ordinary byte that no
/// published file name contains, so such requests end in 404 and are never decoded twice.
public struct RequestTarget: Equatable, Sendable {
    /// Decoded, non-empty path segments; `[]` for `/`.
    public let segments: [String]
    /// Decoded query parameters in order (`a=b&c` gives `("a","b")`, `("c","")`).
    public let query: [(name: String, value: String)]

    public var path: String { segments.joined(separator: "/") }

    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    public static func == (a: RequestTarget, b: RequestTarget) -> Bool {
        a.segments == b.segments && a.query.map(\.name) == b.query.map(\.name) && a.query.map(\.value) == b.query.map(\.value)
    }

    /// Why a target was refused, and the status to answer.
    public enum Refusal: Error, Equatable, Sendable {
        /// 400: not a path we will ever interpret (bad escapes, `..`, NUL, control bytes, backslash).
        case badRequest(String)
        /// 404: a well-formed path that names something hidden (a dotfile).
        case hidden

        public var status: Int {
            switch self {
            case .badRequest: return 400
            case .hidden: return 404
            }
        }
    }

    public static let maxLength = 4096

    public init(segments: [String], query: [(name: String, value: String)] = []) {
        self.segments = segments
        self.query = query
    }

    /// Parses an origin-form request-target (`/path?query`), as it appeared on the request line.
    public static func parse(_ raw: String) throws(Refusal) -> RequestTarget {
        let bytes = Array(raw.utf8)
        guard bytes.count <= maxLength else { throw .badRequest("request target longer than \(maxLength) bytes") }
        guard bytes.first == UInt8(ascii: "/") else { throw .badRequest("request target must start with /") }
        let q = bytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = bytes[..<(q ?? bytes.endIndex)]
        let rawQuery = q.map { bytes[($0 + 1)...] } ?? []

        let decoded = try decode(rawPath)
        var segments: [String] = []
        let pieces = decoded.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        for (n, piece) in pieces.enumerated() {
            // A trailing slash is allowed only as `/` itself; `a//b` and `dir/` are not names we serve.
            if piece.isEmpty {
                if pieces.count == 1 && n == 0 { break }
                throw .badRequest("empty path segment")
            }
            if piece.elementsEqual([UInt8(ascii: ".")]) || piece.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                throw .badRequest("dot segment in path")
            }
            guard let s = String(validating: piece, as: UTF8.self) else { throw .badRequest("path is not UTF-8") }
            segments.append(s)
        }
        // Dotfiles (.git, .htpasswd, .partial uploads) are never served, but that is "not found", not a bad request.
        if segments.contains(where: { $0.hasPrefix(".") }) { throw .hidden }

        var query: [(String, String)] = []
        for pair in rawQuery.split(separator: UInt8(ascii: "&")) where !pair.isEmpty {
            let eq = pair.firstIndex(of: UInt8(ascii: "="))
            let name = try decode(pair[..<(eq ?? pair.endIndex)], plus: true)
            var value: [UInt8] = []
            if let eq { value = try decode(pair[(eq + 1)...], plus: true) }
            guard let n = String(validating: name, as: UTF8.self), let v = String(validating: value, as: UTF8.self) else {
                throw .badRequest("query is not UTF-8")
            }
            query.append((n, v))
        }
        return RequestTarget(segments: segments, query: query)
    }

    /// Percent-decodes once. Refuses malformed escapes and, after decoding, NUL, control bytes,
    /// DEL and backslash (which some file systems and proxies treat as a separator).
    static func decode<C: Collection>(_ raw: C, plus: Bool = false) throws(Refusal) -> [UInt8] where C.Element == UInt8, C.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            var b = raw[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < raw.endIndex, let hi = Hex.digitValue(raw[i + 1]), let lo = Hex.digitValue(raw[i + 2]) else {
                    throw .badRequest("malformed percent escape")
                }
                b = hi << 4 | lo
                i += 3
            } else {
                if plus && b == UInt8(ascii: "+") { b = UInt8(ascii: " ") }
                i += 1
            }
            if b < 0x20 || b == 0x7f { throw .badRequest(b == 0 ? "NUL in request target" : "control byte in request target") }
            if b == UInt8(ascii: "\\") { throw .badRequest("backslash in request target") }
            out.append(b)
        }
        return out
    }
}
