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

    public static func format(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since 1970 for an HTTP-date in any of its three forms; `now` places the two-digit
    /// years of the RFC 850 form (§5.6.7: no more than 50 years ahead).
    public static func parse(_ text: String, now: Date = Date()) -> Int64? {
        let f = text.split(separator: " ", omittingEmptySubsequences: false)
        if f.count == 6, f[0].count == 4, f[0].hasSuffix(","), days.contains(String(f[0].dropLast())), f[5] == "GMT",
           f[1].count == 2, let day = Int32(f[1]), let month = months.firstIndex(of: String(f[2])), f[3].count == 4, let year = Int32(f[3]) {
            return seconds(year: year, month: month, day: day, time: f[4])
        }
        if f.count == 4, f[0].hasSuffix(","), longDays.contains(String(f[0].dropLast())), f[3] == "GMT" {
            let date = f[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 2, let day = Int32(date[0]), let month = months.firstIndex(of: String(date[1])),
                  date[2].count == 2, let yy = Int32(date[2]) else { return nil }
            return seconds(year: fullYear(yy, now: now), month: month, day: day, time: f[2])
        }
        // asctime: the day of the month is padded with a space, which splits into an empty field.
        let a = f.filter { !$0.isEmpty }
        if a.count == 5, (f.count == 5 && a[2].count == 2) || (f.count == 6 && f[2].isEmpty && a[2].count == 1), days.contains(String(a[0])),
           let month = months.firstIndex(of: String(a[1])), let day = Int32(a[2]),
           a[4].count == 4, let year = Int32(a[4]) {
            return seconds(year: year, month: month, day: day, time: a[3])
        }
        return nil
    }

    private static func seconds(year: Int32, month: Int, day: Int32, time: Substring) -> Int64? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }), let h = Int32(hms[0]), let m = Int32(hms[1]), let s = Int32(hms[2]),
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
