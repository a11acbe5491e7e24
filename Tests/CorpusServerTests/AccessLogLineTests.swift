import Testing
@testable import CorpusServer
import CorpusTestSupport

/// The access log's line: its layout, and that a stranger's request text reaches it escaped.
@Suite struct AccessLogLineTests {
    static func entry(client: String = "127.0.0.1", method: String = "GET", path: String = "/catalog.json", status: Int = 200,
                      bytes: Int64 = 512, seconds: Double = 0.001, completed: Bool = true) -> AccessLogEntry {
        AccessLogEntry(client: client, method: method, path: path, status: status, bytes: bytes, seconds: seconds, completed: completed)
    }

    @Test func lineLayout() {
        #expect(Self.entry().description == #"127.0.0.1 "GET /catalog.json" 200 512 0.001000s"#)
        #expect(Self.entry(status: 0, bytes: 0, seconds: 12.5, completed: false).description
                == #"127.0.0.1 "GET /catalog.json" - 0 12.500000s aborted"#)
        // Whole microseconds, rounded; a negative duration (a clock step) is 0.
        #expect(Self.entry(seconds: 0.0000004).description.hasSuffix(" 0.000000s"))
        #expect(Self.entry(seconds: 0.0000006).description.hasSuffix(" 0.000001s"))
        #expect(Self.entry(seconds: -3).description.hasSuffix(" 0.000000s"))
        #expect(Self.entry(bytes: 1_073_741_824, seconds: 3_600.25).description.hasSuffix(" 200 1073741824 3600.250000s"))
    }

    @Test func lineBytesAreTheDescription() {
        var out: [UInt8] = Array("x".utf8)
        let e = Self.entry(path: "/bundles/a.corpus.zip", status: 206, completed: false)
        e.appendLine(to: &out)
        #expect(out == Array(("x" + e.description + "\n").utf8))
    }

    @Test func printableTextIsKept() {
        let path = "/bundles/0123456789abcdef.corpus.zip%20x~!$&'()*+,;=:@"
        #expect(AccessLogEntry.sanitize(path) == path)
    }

    /// Control characters, space, the quote that delimits the request, DEL and every non-ASCII
    /// byte are written as %XX: a log viewer never sees an escape sequence, and no line can be
    /// split or forged.
    @Test func strangersBytesAreEscaped() {
        #expect(AccessLogEntry.sanitize("/a\u{1B}[2Jb") == "/a%1B[2Jb")
        #expect(AccessLogEntry.sanitize("/a\r\n127.0.0.1 \"GET /x\" 200") == "/a%0D%0A127.0.0.1%20%22GET%20/x%22%20200")
        #expect(AccessLogEntry.sanitize("/\u{7F}\u{00}") == "/%7F%00")
        #expect(AccessLogEntry.sanitize("/é\u{202E}") == "/%C3%A9%E2%80%AE")
    }

    @Test func longTextIsCutAtTheLimit() {
        let long = "/" + String(repeating: "a", count: 600)
        #expect(AccessLogEntry.sanitize(long) == String(long.prefix(512)) + "…")
        #expect(AccessLogEntry.sanitize(String(long.prefix(512))) == String(long.prefix(512)))
        // The limit counts bytes of the request, before escaping.
        let escaped = AccessLogEntry.sanitize(String(repeating: "\u{1}", count: 20), limit: 16)
        #expect(escaped == String(repeating: "%01", count: 16) + "…")
    }

    @Test func clientAddressIsDottedDecimal() {
        #expect(AccessLogEntry.ipv4(networkOrder: [127, 0, 0, 1]) == "127.0.0.1")
        #expect(AccessLogEntry.ipv4(networkOrder: [255, 10, 100, 0]) == "255.10.100.0")
    }

    /// Through a live server: a request whose target holds bytes outside printable ASCII is logged
    /// escaped (whatever the server answered). A byte that is not UTF-8 is logged as U+FFFD, as
    /// libmicrohttpd's target reaches the server as a String.
    @Test func servedRequestIsLoggedEscaped() throws {
        let f = try ServerFixture()
        let target = Array("/catalogs/\u{1B}]0;owned\u{07}".utf8) + [0xFF] + Array(".json".utf8)
        let reply = try ServerTestClient.raw(port: f.port, Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(reply.status == 400 || reply.status == 404)
        #expect(f.eventually { f.logs.all.count == 1 })
        let line = f.logs.lines.first ?? ""
        #expect(line.hasPrefix("127.0.0.1 \"GET /catalogs/%1B]0;owned%07%EF%BF%BD.json\" "), "\(line)")
        #expect(line.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(line)")
    }
}
