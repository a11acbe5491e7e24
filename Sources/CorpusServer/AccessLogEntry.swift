import Foundation
import CorpusFormat

/// One line of the access log. It holds the method and the path without its query (where a
/// careless client might put a credential), and never any request header: the Authorization
/// header and the token in it are never logged.
///
/// Built and formatted once per request on a serving thread, so both stay on bytes: a clean path
/// is kept as given, and the line is written digit by digit (String interpolation, `inet_ntop`
/// and per-character escaping cost a tenth of the small-file request rate in profiles).
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

    /// `127.0.0.1 "GET /catalog.json" 200 512 0.001000s` (plus ` aborted` for incomplete responses).
    public var description: String {
        var line: [UInt8] = []
        line.reserveCapacity(64 + path.utf8.count)
        appendFields(to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends `description` and a newline.
    public func appendLine(to out: inout [UInt8]) {
        appendFields(to: &out)
        out.append(0x0A)
    }

    private func appendFields(to out: inout [UInt8]) {
        out.append(contentsOf: client.utf8)
        out.append(contentsOf: " \"".utf8)
        out.append(contentsOf: method.utf8)
        out.append(0x20)
        out.append(contentsOf: path.utf8)
        out.append(contentsOf: "\" ".utf8)
        // Status 0: libmicrohttpd refused the request itself (e.g. 431) or the client left first.
        if status == 0 { out.append(UInt8(ascii: "-")) } else { Self.appendDecimal(UInt64(max(0, status)), to: &out) }
        out.append(0x20)
        Self.appendDecimal(UInt64(max(0, bytes)), to: &out)
        out.append(0x20)
        // Whole microseconds, by integer arithmetic.
        let micros = UInt64((max(0, seconds) * 1e6).rounded())
        Self.appendDecimal(micros / 1_000_000, to: &out)
        out.append(UInt8(ascii: "."))
        Self.appendDecimal(micros % 1_000_000, to: &out, width: 6)
        out.append(UInt8(ascii: "s"))
        if !completed { out.append(contentsOf: " aborted".utf8) }
    }

    /// `value` in decimal, left-padded with zeros to `width` digits.
    static func appendDecimal(_ value: UInt64, to out: inout [UInt8], width: Int = 1) {
        var divisor: UInt64 = 1
        var digits = 1
        while value / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        if digits < width { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits)) }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// Makes untrusted request text safe for one log line: printable ASCII kept (but `"`, which
    /// delimits the request), the rest `%XX`; cut at `limit` bytes, marked with `…`.
    static func sanitize(_ text: String, limit: Int = 512) -> String {
        let utf8 = text.utf8
        if utf8.count <= limit, utf8.allSatisfy(isKept) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(min(utf8.count, limit) * 3 + 3)
        for b in utf8.prefix(limit) {
            if isKept(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                Hex.append(b, uppercase: true, to: &out)
            }
        }
        if utf8.count > limit { out.append(contentsOf: "…".utf8) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isKept(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7f && b != UInt8(ascii: "\"") }

    /// The dotted-decimal form of an IPv4 address given as its four bytes in network order.
    static func ipv4(networkOrder octets: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(15)
        for (i, octet) in octets.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ".")) }
            appendDecimal(UInt64(octet), to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
