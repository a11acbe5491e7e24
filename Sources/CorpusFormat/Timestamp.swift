import Foundation

/// UTC timestamps in signed documents: RFC 3339 with whole seconds and a `Z`, e.g. `2026-11-29T20:05:00Z`.
public enum Timestamp {
    public static func format(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z") else { return nil }
        func num(_ r: Range<Int>) -> Int32? {
            guard bytes[r].allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int32(String(decoding: bytes[r], as: UTF8.self))
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13), let mi = num(14..<16), let s = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var parts = tm()
        parts.tm_year = y - 1900
        parts.tm_mon = mo - 1
        parts.tm_mday = d
        parts.tm_hour = h
        parts.tm_min = mi
        parts.tm_sec = s
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// Parses durations like `90s`, `15m`, `12h`, `30d`, `2w` into seconds.
    public static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0 else { return nil }
        switch unit {
        case "s": return TimeInterval(n)
        case "m": return TimeInterval(n) * 60
        case "h": return TimeInterval(n) * 3600
        case "d": return TimeInterval(n) * 86400
        case "w": return TimeInterval(n) * 7 * 86400
        default: return nil
        }
    }
}
