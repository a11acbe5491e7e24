import Foundation

/// One line of the access log. It holds the method and the path without its query (where a
/// careless client might put a credential), and never any request header: the Authorization
/// header and the token in it are never logged.
public struct AccessLogEntry: Sendable, CustomStringConvertible {
    public let client: String
    public let method: String
    /// The raw path as requested (still percent-encoded), non-printable bytes escaped, at most 512 bytes.
    public let path: String
    public let status: Int
    /// Body bytes sent; 0 when the client went away before the response completed.
    public let bytes: Int64
    public let seconds: Double
    /// False when the connection ended before the response was fully sent.
    public let completed: Bool

    /// `127.0.0.1 "GET /catalog.json" 200 512 0.001s` (plus ` aborted` for incomplete responses).
    public var description: String {
        // Whole microseconds by integer arithmetic: String(format:) costs more than the rest of the line.
        let micros = Int64((max(0, seconds) * 1e6).rounded())
        let fraction = String(micros % 1_000_000)
        let time = "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        // Status 0: libmicrohttpd refused the request itself (e.g. 431) or the client left first.
        return "\(client) \"\(method) \(path)\" \(status == 0 ? "-" : String(status)) \(bytes) \(time)s" + (completed ? "" : " aborted")
    }

    /// Makes untrusted request text safe for one log line: printable ASCII kept, the rest `%XX`.
    static func sanitize(_ text: String, limit: Int = 512) -> String {
        var out = ""
        for b in text.utf8.prefix(limit) {
            if b > 0x20 && b < 0x7f && b != UInt8(ascii: "\"") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 0xf)])
            }
        }
        return text.utf8.count > limit ? out + "…" : out
    }
}
