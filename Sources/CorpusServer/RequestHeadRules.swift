import CorpusFormat

/// The request-head syntax RFC 9112 requires and libmicrohttpd 0.9.75 does not enforce, checked on
/// the fields as it hands them over (names as received, values without leading whitespace).
/// Anything here is answered 400 and the connection closed: a head two parsers could read two
/// ways is how request smuggling starts, so nothing after it on the connection is trusted.
///
/// What libmicrohttpd tolerates and this refuses, each seen with raw sockets against 0.9.75:
/// whitespace before the colon (`Content-Length : 5` arrives as a field named `Content-Length `),
/// a bare CR inside a line (kept in the value), spaces and control bytes in the request-target,
/// several `Host` fields or none in HTTP/1.1, a `Host` that is not one. NUL bytes and folded lines
/// leave no trace in the strings; `RequestHeadLayout` finds those.
enum RequestHeadRules {
    /// Fields this server reads as a single value: a second one would make the request mean two
    /// things (which Authorization, which Range?), so it is refused rather than resolved.
    static let singletons: [HTTPHeaderName] = [.host, .authorization, .range, .ifRange, .ifModifiedSince, .ifUnmodifiedSince, .xOriginalURI]

    /// Why the head must be refused, or nil. `fields` are as received.
    static func refusal<Target: Sequence<UInt8>>(version: String, rawTarget: Target, fields: [(name: HTTPHeaderName, value: String)]) -> String? {
        if rawTarget.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the request target holds a space or a control byte (RFC 9112 §3.2)"
        }
        for field in fields {
            let name = field.name.spelling
            if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                return "header field name \(printable(name).debugDescription) is not a token: no whitespace or control bytes, none before the colon (RFC 9112 §5.1)"
            }
            if field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return "header field \(name) holds a control byte such as a bare CR (RFC 9112 §2.2, RFC 9110 §5.5)"
            }
        }
        // Counted in one pass over the fields (this runs for every request).
        var seen = [Int](repeating: 0, count: singletons.count)
        for field in fields {
            if let i = singletons.firstIndex(of: field.name) { seen[i] += 1 }
        }
        if seen[0] == 0 && version == "HTTP/1.1" { return "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)" }
        if let i = seen.firstIndex(where: { $0 > 1 }) {
            let name = singletons[i]
            return "more than one \(name) header" + (name == .host ? " (RFC 9112 §3.2)" : "; send it once")
        }
        if let host = fields.first(where: { $0.name == .host })?.value, !isValidHost(trimmed(host)) {
            return "Host \(printable(host).debugDescription) is not a host with an optional port (RFC 9112 §3.2)"
        }
        return nil
    }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return tokenPunctuation.contains(b)
        }
    }

    // Built once: a literal in the functions above is an array allocated on every call.
    private static let tokenPunctuation = Array("!#$%&'*+-.^_`|~".utf8)
    private static let unreservedPunctuation = Array("-._~".utf8)
    private static let subDelims = Array("!$&'()*+,;=".utf8)

    /// `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2): an IP literal in brackets, or a
    /// reg-name / IPv4 address of unreserved, sub-delims and %HH; a port of at most 65535. Empty is
    /// allowed (the grammar's empty reg-name).
    static func isValidHost(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard literal.contains(UInt8(ascii: ":")), literal.allSatisfy({ Hex.digitValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return false
            }
            bytes = bytes[bytes.index(after: close)...]
            guard bytes.isEmpty || bytes.first == UInt8(ascii: ":") else { return false }
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard isRegName(bytes[..<end]) else { return false }
            bytes = bytes[end...]
        }
        guard !bytes.isEmpty else { return true }
        let port = bytes.dropFirst()
        guard port.count <= 5, port.allSatisfy({ (48...57).contains($0) }) else { return false }
        return port.reduce(0) { $0 * 10 + Int($1 - 48) } <= 65535
    }

    private static func isRegName(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                let h1 = bytes.index(after: i)
                guard h1 < bytes.endIndex, bytes.index(after: h1) < bytes.endIndex,
                      Hex.digitValue(bytes[h1]) != nil, Hex.digitValue(bytes[bytes.index(after: h1)]) != nil else { return false }
                i = bytes.index(i, offsetBy: 3)
                continue
            }
            let alphanumeric = (48...57).contains(b) || (65...90).contains(b) || (97...122).contains(b)
            guard alphanumeric || unreservedPunctuation.contains(b) || subDelims.contains(b) else { return false }
            i = bytes.index(after: i)
        }
        return true
    }

    /// Without the optional whitespace around a field value (RFC 9110 §5.5).
    static func trimmed(_ value: String) -> String {
        var bytes = Substring(value).utf8[...]
        while let f = bytes.first, f == 0x20 || f == 0x09 { bytes = bytes.dropFirst() }
        while let l = bytes.last, l == 0x20 || l == 0x09 { bytes = bytes.dropLast() }
        return String(Substring(bytes))
    }

    /// Request text may appear in a refusal, but short and printable only.
    static func printable(_ s: String) -> String {
        let clean = String(s.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7f }.prefix(40).map(Character.init))
        return clean.count < s.count ? clean + "…" : clean
    }
}
