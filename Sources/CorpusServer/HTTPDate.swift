import Foundation

/// HTTP-date (RFC 9110 §5.6.7) for Last-Modified and the conditional request fields. Written as
/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`); read in all three forms a recipient must accept:
/// IMF-fixdate, the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's
/// asctime form (`Sun Nov  6 08:49:37 1994`). Anything else is no date, and a condition built on
/// it does not apply.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The first and last second an IMF-fixdate can write: its year is four digits.
    static let representable: ClosedRange<Int64> = -62_167_219_200 ... 253_402_300_799

    /// The IMF-fixdate of `seconds` since 1970; an instant outside the years 0000-9999 (a file
    /// touched to year 10000, say) is written as the nearest one the format can hold.
    public static func format(_ seconds: Int64) -> String {
        var t = time_t(min(max(seconds, representable.lowerBound), representable.upperBound))
        var parts = tm()
        gmtime_r(&t, &parts)
        func padded(_ v: Int32, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(v).count)) + String(v) }
        return "\(days[Int(parts.tm_wday)]), \(padded(parts.tm_mday, 2)) \(months[Int(parts.tm_mon)]) \(padded(parts.tm_year + 1900, 4)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2)) GMT"
    }

    /// Seconds since 1970 for an HTTP-date in any of its three forms; `now` places the two-digit
    /// years of the RFC 850 form (§5.6.7: no more than 50 years ahead).
    public static func parse(_ text: String, now: Date = Date()) -> Int64? {
        let f = text.split(separator: " ", omittingEmptySubsequences: false)
        if f.count == 6, f[0].count == 4, f[0].hasSuffix(","), days.contains(String(f[0].dropLast())), f[5] == "GMT",
           f[1].count == 2, let day = digits(f[1]), let month = months.firstIndex(of: String(f[2])), f[3].count == 4, let year = digits(f[3]) {
            return seconds(year: year, month: month, day: day, time: f[4])
        }
        if f.count == 4, f[0].hasSuffix(","), longDays.contains(String(f[0].dropLast())), f[3] == "GMT" {
            let date = f[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 2, let day = digits(date[0]), let month = months.firstIndex(of: String(date[1])),
                  date[2].count == 2, let yy = digits(date[2]) else { return nil }
            return seconds(year: fullYear(yy, now: now), month: month, day: day, time: f[2])
        }
        // asctime: the day of the month is padded with a space, which splits into an empty field.
        let a = f.filter { !$0.isEmpty }
        if a.count == 5, (f.count == 5 && a[2].count == 2) || (f.count == 6 && f[2].isEmpty && a[2].count == 1), days.contains(String(a[0])),
           let month = months.firstIndex(of: String(a[1])), let day = digits(a[2]),
           a[4].count == 4, let year = digits(a[4]) {
            return seconds(year: year, month: month, day: day, time: a[3])
        }
        return nil
    }

    private static func seconds(year: Int32, month: Int, day: Int32, time: Substring) -> Int64? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }), let h = digits(hms[0]), let m = digits(hms[1]), let s = digits(hms[2]),
              (1...31).contains(day), h < 24, m < 60, s < 61 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = h
        parts.tm_min = m
        parts.tm_sec = s
        return Int64(timegm(&parts))
    }

    /// A field of ASCII digits only (`Int32("+6")` is 6, and `-001` a year before 0000).
    private static func digits(_ field: Substring) -> Int32? {
        guard !field.isEmpty, field.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int32(field)
    }

    /// RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is the latest past year ending so.
    private static func fullYear(_ yy: Int32, now: Date) -> Int32 {
        var t = time_t(now.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&t, &parts)
        let current = parts.tm_year + 1900
        var year = current - current % 100 + yy
        if year > current + 50 { year -= 100 }
        return year
    }
}
