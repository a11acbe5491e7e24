/// A header field name. Two names are the same field when they differ only in ASCII case (RFC 9110
/// §5.1); a name is sent as spelled. Only A–Z are folded: a field name is a token of ASCII bytes,
/// and Unicode case folding would turn a name that is no token into one (U+212A KELVIN SIGN folds
/// to "k"), which `RequestHeadRules` must still see and refuse.
struct HTTPHeaderName: Hashable, Sendable, CustomStringConvertible {
    /// As received, or as this server sends it.
    let spelling: String
    /// `spelling` with A–Z lowered and every other byte as it was: what equality compares.
    let folded: String

    init(_ spelling: String) {
        self.spelling = spelling
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        if spelling.utf8.contains(where: { upper.contains($0) }) {
            folded = String(decoding: spelling.utf8.map { upper.contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        } else {
            folded = spelling
        }
    }

    static func == (a: HTTPHeaderName, b: HTTPHeaderName) -> Bool { a.folded == b.folded }
    func hash(into hasher: inout Hasher) { hasher.combine(folded) }

    var description: String { spelling }

    // Read from requests.
    static let host = HTTPHeaderName("Host")
    static let authorization = HTTPHeaderName("Authorization")
    static let contentLength = HTTPHeaderName("Content-Length")
    static let transferEncoding = HTTPHeaderName("Transfer-Encoding")
    static let range = HTTPHeaderName("Range")
    static let ifRange = HTTPHeaderName("If-Range")
    static let ifMatch = HTTPHeaderName("If-Match")
    static let ifNoneMatch = HTTPHeaderName("If-None-Match")
    static let ifModifiedSince = HTTPHeaderName("If-Modified-Since")
    static let ifUnmodifiedSince = HTTPHeaderName("If-Unmodified-Since")
    /// nginx `auth_request`: the path of the request being authorised.
    static let xOriginalURI = HTTPHeaderName("X-Original-URI")

    // Sent in responses.
    static let acceptRanges = HTTPHeaderName("Accept-Ranges")
    static let allow = HTTPHeaderName("Allow")
    static let cacheControl = HTTPHeaderName("Cache-Control")
    static let connection = HTTPHeaderName("Connection")
    static let contentRange = HTTPHeaderName("Content-Range")
    static let contentType = HTTPHeaderName("Content-Type")
    static let etag = HTTPHeaderName("ETag")
    static let lastModified = HTTPHeaderName("Last-Modified")
    static let location = HTTPHeaderName("Location")
    static let vary = HTTPHeaderName("Vary")
    static let wwwAuthenticate = HTTPHeaderName("WWW-Authenticate")
    static let xContentTypeOptions = HTTPHeaderName("X-Content-Type-Options")
    /// For nginx to copy into Cache-Control after `auth_request` (deploy/nginx.conf).
    static let xCorpusCacheControl = HTTPHeaderName("X-Corpus-Cache-Control")
}
