import Foundation

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) for Last-Modified and
/// If-Modified-Since. Only this form is parsed; the obsolete forms are ignored, as a cache
/// validator that does not parse simply does not apply.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func format(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    public static func parse(_ text: String) -> Int64? {
        let f = text.split(separator: " ")
        guard f.count == 6, f[0].count == 4, f[0].hasSuffix(","), days.contains(String(f[0].dropLast())), f[5] == "GMT",
              let day = Int32(f[1]), f[1].count == 2, let month = months.firstIndex(of: String(f[2])),
              let year = Int32(f[3]), f[3].count == 4 else { return nil }
        let hms = f[4].split(separator: ":")
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
}
