import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// RFC 9110 §13: If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since, evaluated in the
/// order of §13.2.2, against a real file served over loopback.
@Suite struct ConditionalRequestTests {
    /// Placeholders: E the file's ETag, L its Last-Modified, P a date long before it, F a date
    /// after the server's clock; "rfc850(L)" and "asctime(L)" the obsolete forms of L.
    static let cases: [(String, [(String, String)], Int)] = [
        ("If-Match naming the ETag", [("If-Match", "E")], 200),
        ("If-Match *", [("If-Match", "*")], 200),
        ("If-Match list holding the ETag", [("If-Match", "\"other\", E")], 200),
        ("If-Match naming another ETag", [("If-Match", "\"other\"")], 412),
        ("If-Match with the weak form of the ETag", [("If-Match", "W/E")], 412),
        ("If-Match that is not an entity-tag", [("If-Match", "other")], 412),
        ("If-Unmodified-Since its date", [("If-Unmodified-Since", "L")], 200),
        ("If-Unmodified-Since a later date", [("If-Unmodified-Since", "F")], 200),
        ("If-Unmodified-Since an earlier date", [("If-Unmodified-Since", "P")], 412),
        ("If-Unmodified-Since that is not a date", [("If-Unmodified-Since", "yesterday")], 200),
        ("If-Match holds, so If-Unmodified-Since is ignored", [("If-Match", "E"), ("If-Unmodified-Since", "P")], 200),
        ("If-Match fails before If-None-Match is looked at", [("If-Match", "\"other\""), ("If-None-Match", "E")], 412),
        ("If-Unmodified-Since fails before If-None-Match is looked at", [("If-Unmodified-Since", "P"), ("If-None-Match", "E")], 412),
        ("If-Unmodified-Since holds, then If-None-Match matches", [("If-Unmodified-Since", "L"), ("If-None-Match", "E")], 304),
        ("If-None-Match naming the ETag", [("If-None-Match", "E")], 304),
        ("If-None-Match with the weak form", [("If-None-Match", "W/E")], 304),
        ("If-None-Match *", [("If-None-Match", "*")], 304),
        ("If-None-Match naming another ETag", [("If-None-Match", "\"other\"")], 200),
        ("If-None-Match present, so If-Modified-Since is ignored", [("If-None-Match", "\"other\""), ("If-Modified-Since", "L")], 200),
        ("If-Modified-Since its date", [("If-Modified-Since", "L")], 304),
        ("If-Modified-Since a date after the server's clock", [("If-Modified-Since", "F")], 200),
        ("If-Modified-Since an earlier date", [("If-Modified-Since", "P")], 200),
        ("If-Modified-Since that is not a date", [("If-Modified-Since", "yesterday")], 200),
        ("If-Modified-Since in the RFC 850 form", [("If-Modified-Since", "rfc850(L)")], 304),
        ("If-Modified-Since in the asctime form", [("If-Modified-Since", "asctime(L)")], 304),
        ("If-Match fails on a Range request", [("If-Match", "\"other\""), ("Range", "bytes=0-9")], 412),
    ]

    @Test(arguments: cases)
    func preconditionsAreEvaluatedInTheOrderOfRFC9110(_ name: String, _ headers: [(String, String)], _ status: Int) throws {
        let f = try ServerFixture()
        let path = "/catalog.json"
        let plain = try f.get(path)
        let etag = try #require(plain.header("ETag"))
        let lastModified = try #require(plain.header("Last-Modified"))
        let mtime = try #require(HTTPDate.parse(lastModified))
        let fill = { (v: String) -> String in
            switch v {
            case "L": return lastModified
            case "P": return "Sun, 06 Nov 1994 08:49:37 GMT"
            case "F": return HTTPDate.format(Int64(Date().timeIntervalSince1970) + 86400)
            case "rfc850(L)": return Self.rfc850(mtime)
            case "asctime(L)": return Self.asctime(mtime)
            default: return v.replacingOccurrences(of: "E", with: etag)
            }
        }
        var text = "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        for (k, v) in headers { text += "\(k): \(fill(v))\r\n" }
        let r = try ServerTestClient.raw(port: f.port, Array((text + "\r\n").utf8))
        #expect(r.status == status, "\(name): \(r.text)")
        if status == 412 { #expect(r.text.hasPrefix("412 "), "\(name)") }
        if status == 304 { #expect(r.header("ETag") == etag && r.body.isEmpty, "\(name)") }
        if status == 200 { #expect(r.body == plain.body, "\(name)") }
    }

    @Test func theGateComesBeforeAnyPrecondition() throws {
        let f = try ServerFixture()
        #expect(try f.get(f.bundle("paid-atlas"), headers: ["If-Match": "\"other\""]).status == 401)
        #expect(try f.get(f.bundle("paid-atlas"), headers: ["If-None-Match": "*"]).status == 401)
    }

    static func parts(_ t: Int64) -> tm {
        var time = time_t(t)
        var p = tm()
        gmtime_r(&time, &p)
        return p
    }

    static func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    static func rfc850(_ t: Int64) -> String {
        let p = parts(t)
        let days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        return "\(days[Int(p.tm_wday)]), \(two(p.tm_mday))-\(months[Int(p.tm_mon)])-\(two(p.tm_year % 100)) "
            + "\(two(p.tm_hour)):\(two(p.tm_min)):\(two(p.tm_sec)) GMT"
    }

    /// `Sun Nov  6 08:49:37 1994`
    static func asctime(_ t: Int64) -> String {
        let p = parts(t)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let day = p.tm_mday < 10 ? " \(p.tm_mday)" : "\(p.tm_mday)"
        return "\(days[Int(p.tm_wday)]) \(months[Int(p.tm_mon)]) \(day) \(two(p.tm_hour)):\(two(p.tm_min)):\(two(p.tm_sec)) \(p.tm_year + 1900)"
    }
}
