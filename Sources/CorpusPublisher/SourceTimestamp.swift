import Foundation
import CorpusFormat

/// A point in time as another app writes it, turned into the pack's one spelling
/// (`YYYY-MM-DDTHH:MM:SSZ`, UTC, whole seconds), so timestamps compare as text.
///
/// Accepted: RFC 3339 / ISO 8601 date-times (`2026-03-01T09:30:00Z`, with a fraction, with an
/// offset such as `+02:00` or `+0200`, or with a space instead of `T`), a bare date (`2026-03-01`,
/// midnight UTC), and Unix time as a number or a string of digits: seconds, or milliseconds when
/// it is above 10^11 (a time in seconds that large is past the year 5000). Years 1970 to 9999.
enum SourceTimestamp {
    static func canonical(_ text: String) -> String? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if !t.isEmpty, t.allSatisfy(\.isASCIIDigit), let n = Double(t) { return canonical(unix: n) }
        return parseISO(Array(t.utf8)).map(Timestamp.format)
    }

    static func canonical(unix n: Double) -> String? {
        guard n.isFinite, n >= 0 else { return nil }
        let seconds = n > 1e11 ? n / 1000 : n
        guard seconds < 253_402_300_800 else { return nil }  // 10000-01-01
        return Timestamp.format(Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    /// `YYYY-MM-DD`, optionally `(T| )HH:MM(:SS(.fff)?)?` and `Z` / `±HH:MM` / `±HHMM`.
    static func parseISO(_ b: [UInt8]) -> Date? {
        func num(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count, b[at..<(at + count)].allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(String(decoding: b[at..<(at + count)], as: UTF8.self))
        }
        guard let y = num(0, 4), b.count >= 10, b[4] == UInt8(ascii: "-"), let mo = num(5, 2), b[7] == UInt8(ascii: "-"),
              let d = num(8, 2), (1970...9999).contains(y), (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var h = 0, mi = 0, s = 0, offset = 0, i = 10
        if i < b.count {
            guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " "), let hh = num(i + 1, 2), i + 3 < b.count,
                  b[i + 3] == UInt8(ascii: ":"), let mm = num(i + 4, 2) else { return nil }
            (h, mi, i) = (hh, mm, i + 6)
            if i < b.count, b[i] == UInt8(ascii: ":") {
                guard let ss = num(i + 1, 2) else { return nil }
                (s, i) = (ss, i + 3)
                if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                    i += 1
                    let start = i
                    while i < b.count, (48...57).contains(b[i]) { i += 1 }
                    guard i > start else { return nil }
                }
            }
            guard i < b.count else { return nil }  // a time needs its zone
            if b[i] == UInt8(ascii: "Z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "+") ? 1 : -1
                guard let oh = num(i + 1, 2) else { return nil }
                var om = 0
                if let m = num(i + 3, 2) { (om, i) = (m, i + 5) }
                else if i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"), let m = num(i + 4, 2) { (om, i) = (m, i + 6) }
                else { i += 3 }
                guard oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
            guard i == b.count, h < 24, mi < 60, s < 61 else { return nil }
        }
        var parts = tm()
        parts.tm_year = Int32(y - 1900)
        parts.tm_mon = Int32(mo - 1)
        parts.tm_mday = Int32(d)
        parts.tm_hour = Int32(h)
        parts.tm_min = Int32(mi)
        parts.tm_sec = Int32(s)
        let seconds = TimeInterval(timegm(&parts)) - TimeInterval(offset)
        guard seconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// A JSON timestamp: a string in one of the forms `SourceTimestamp` accepts, or a number of
/// Unix seconds (or milliseconds); decoded to the canonical spelling or refused where it stands.
struct SourceTime: Decodable, Hashable, Sendable {
    let canonical: String

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let value: String?
        if let s = try? c.decode(String.self) {
            value = SourceTimestamp.canonical(s)
        } else if let n = try? c.decode(Double.self) {
            value = SourceTimestamp.canonical(unix: n)
        } else {
            value = nil
        }
        guard let value else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a timestamp (ISO 8601 such as 2026-03-01T09:30:00Z, or Unix seconds)")
        }
        canonical = value
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
