/// The one check of every value this project puts into an HTTP request line or header field:
/// the URL, each header's name and value, the user agent.
///
/// RFC 9110 §5.5: a field value never holds CR, LF or NUL, and a sender must not generate other
/// control characters either. A CR or LF in a value would end its line and start a header of the
/// requester's choosing (CWE-113), so a value holding any C0 control (tab aside, which §5.5
/// allows inside a value) or DEL is refused before a byte is sent. The reason names the field,
/// never its value: the value may be a token.
public enum RequestFieldCheck {
    /// Why `value`, the value of the field `name`, cannot be sent; nil when it can.
    public static func problem(value: String, name: String) -> String? {
        problem(value: value, describedAs: "the \(name) header's value")
    }

    /// The same check of a value that goes into part of a header (the access key id libcurl
    /// writes into `Authorization`), named by `what`.
    public static func problem(value: String, describedAs what: String) -> String? {
        guard let offset = controlOffset(in: value, allowTab: true) else { return nil }
        return "\(what) holds a control character (byte \(offset)), which no header may carry"
    }

    /// Why `name` cannot be a header name (RFC 9110 §5.1: a token); nil when it can.
    public static func problem(name: String) -> String? {
        if name.isEmpty { return "a header has an empty name" }
        // tchar: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
        let allowed: Set<UInt8> = Set("!#$%&'*+-.^_`|~".utf8)
        for b in name.utf8 where !(allowed.contains(b) || (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A)) {
            return "a header name holds a byte (0x\(String(b, radix: 16))) that is not a token character"
        }
        return nil
    }

    /// Why `url` cannot be a request target; nil when it can. A URL holds no whitespace or control
    /// character at all (RFC 3986 §2: they are percent-encoded).
    public static func problem(url: String) -> String? {
        guard let offset = controlOffset(in: url, allowTab: false) else {
            return url.utf8.contains(UInt8(ascii: " ")) ? "the URL holds a space (write it as %20)" : nil
        }
        return "the URL holds a control character (byte \(offset)); a URL writes such bytes percent-encoded"
    }

    /// Every problem of one request, in the order it would be sent: the URL, then each header.
    public static func problem(url: String, headers: [(name: String, value: String)]) -> String? {
        if let p = problem(url: url) { return p }
        for h in headers {
            if let p = problem(name: h.name) ?? problem(value: h.value, name: h.name) { return p }
        }
        return nil
    }

    /// The byte offset of the first C0 control or DEL in `text`.
    private static func controlOffset(in text: String, allowTab: Bool) -> Int? {
        for (i, b) in text.utf8.enumerated() where (b < 0x20 && !(allowTab && b == 0x09)) || b == 0x7F {
            return i
        }
        return nil
    }
}
