/// Where libmicrohttpd left the parts of one request head in its read buffer, as addresses and
/// lengths, and the check that nothing was hidden between them.
///
/// libmicrohttpd 0.9.75 parses the head in place and hands every part over as a C string, so a NUL
/// byte silently cuts a part short: `GET /catalog.json\0.png` reaches the application as
/// `/catalog.json`, and `X-A: a\0b` as `a`. The bytes after a NUL are never shown, but where the
/// next part starts is: the request line is `method SP target SP version` and each header line
/// follows the previous one after its CRLF (or bare LF, which RFC 9112 §2.2 lets a recipient
/// accept), and the head ends one empty line after the last field (libmicrohttpd reports the
/// head's size). When a part starts later than that, or the head ends later, something the strings
/// do not show sat in between (a NUL, a folded line libmicrohttpd joined elsewhere, a line without
/// a field name that it took for the end of the head), and the head is refused. Only the addresses
/// are compared; the buffer is never read.
///
/// One case stays invisible: a NUL directly before a line's LF occupies the place of the CR that
/// libmicrohttpd overwrites with NUL anyway, and leaves the value before it unchanged.
struct RequestHeadLayout: Equatable {
    /// A part of the head: its first byte's address and its length in bytes.
    struct Span: Equatable {
        let start: UInt
        let length: Int
        var end: UInt { start &+ UInt(length) }
    }

    var method: Span
    /// nil when libmicrohttpd saw no request-target.
    var target: Span?
    /// nil when the request line named no version.
    var version: Span?
    /// Header fields in the order received: where the name and the value start, and how long they are.
    var fields: [(name: Span, value: Span)]
    /// Bytes from the method to the end of the empty line closing the head; nil when unknown.
    var headSize: Int?

    static func == (a: RequestHeadLayout, b: RequestHeadLayout) -> Bool {
        a.method == b.method && a.target == b.target && a.version == b.version
            && a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value) && a.headSize == b.headSize
    }

    static let requestLine = "the request line must be METHOD SP target SP HTTP-version, with single spaces and no NUL byte (RFC 9112 §3)"
    static let fieldLine = "a header line holds a NUL byte, is folded onto the next line (obs-fold) or has no field name; RFC 9112 §2.2 and §5 refuse all three"

    /// Why the head must be refused, or nil.
    func refusal() -> String? {
        guard let target, let version, version.length > 0 else { return Self.requestLine }
        guard target.start == method.end &+ 1, version.start == target.end &+ 1 else { return Self.requestLine }
        var lineEnd = version.end
        for (name, value) in fields {
            // The value starts after the colon and any whitespace libmicrohttpd skipped.
            guard Self.followsLineEnd(name.start, lineEnd), value.start > name.end else { return Self.fieldLine }
            lineEnd = value.end
        }
        // The last line's terminator and the empty line: 2 to 4 bytes (LF or CRLF each).
        if let headSize, !(2...4).contains(Int(bitPattern: method.start &+ UInt(headSize) &- lineEnd)) {
            return fields.isEmpty ? Self.requestLine : Self.fieldLine
        }
        return nil
    }

    /// True when `start` is where a line starts after one ending at `end`: past a CRLF or an LF.
    private static func followsLineEnd(_ start: UInt, _ end: UInt) -> Bool {
        start == end &+ 2 || start == end &+ 1
    }
}
