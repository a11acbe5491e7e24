import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// security-cases.md, "Message parsing": request heads that libmicrohttpd 0.9.75 accepts but RFC 9112
/// says to refuse. Each is answered 400, the connection is closed (a pipelined request after it is
/// never answered) and no file is served.
@Suite struct RequestHeadStrictnessTests {
    static let refused: [(String, [UInt8], String)] = [
        // (name, request head, a word the 400's reason must contain)
        ("NUL in the request target", Array("GET /catalog.json".utf8) + [0] + Array(".png HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "request line"),
        ("NUL at the end of the request target", Array("GET /index.html".utf8) + [0] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "request line"),
        ("NUL in the method", Array("GE".utf8) + [0] + Array("T /catalog.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "request line"),
        ("two spaces after the method", Array("GET  /catalog.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "request line"),
        ("a space inside the request target", Array("GET /catalog.json x HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "request target"),
        ("bare CR in the request target", Array("GET /catalog.json\rX HTTP/1.1\r\nHost: x\r\n\r\n".utf8), "request target"),
        ("NUL in a header value", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-A: a".utf8) + [0] + Array("b\r\n\r\n".utf8), "NUL"),
        ("NUL at the start of a header value", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-A: ".utf8) + [0] + Array("b\r\n\r\n".utf8), "NUL"),
        ("bare CR in a header value", Array("GET /catalog.json HTTP/1.1\r\nHost: x\rX-Injected: yes\r\n\r\n".utf8), "control"),
        ("bare CR before CRLF", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-A: b\r\r\n\r\n".utf8), "control"),
        ("bare CR in a header name", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX\rA: b\r\n\r\n".utf8), "field name"),
        ("other control byte in a header value", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-A: a\u{01}b\r\n\r\n".utf8), "control"),
        ("space before the colon: Content-Length", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nhello".utf8), "field name"),
        ("space before the colon: Transfer-Encoding", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n".utf8), "field name"),
        ("tab before the colon", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nAuthorization\t: Bearer x\r\n\r\n".utf8), "field name"),
        ("space before the colon: Host", Array("GET /catalog.json HTTP/1.1\r\nHost : x\r\n\r\n".utf8), "field name"),
        ("a field name that is not a token", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX(A): b\r\n\r\n".utf8), "field name"),
        ("a line without a field name", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\n: b\r\nX-A: c\r\n\r\n".utf8), "no field name"),
        ("obsolete line folding", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n".utf8), "fold"),
        ("two Host headers", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n".utf8), "Host"),
        ("two identical Host headers", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n".utf8), "Host"),
        ("HTTP/1.1 without Host", Array("GET /catalog.json HTTP/1.1\r\nX-A: b\r\n\r\n".utf8), "Host"),
        ("Host with a space", Array("GET /catalog.json HTTP/1.1\r\nHost: a b\r\n\r\n".utf8), "Host"),
        ("Host with a path", Array("GET /catalog.json HTTP/1.1\r\nHost: a/b\r\n\r\n".utf8), "Host"),
        ("Host with userinfo", Array("GET /catalog.json HTTP/1.1\r\nHost: user@a\r\n\r\n".utf8), "Host"),
        ("Host with a port that is not a number", Array("GET /catalog.json HTTP/1.1\r\nHost: a:http\r\n\r\n".utf8), "Host"),
        ("Host with a port out of range", Array("GET /catalog.json HTTP/1.1\r\nHost: a:65536\r\n\r\n".utf8), "Host"),
        ("Host with an unclosed IPv6 literal", Array("GET /catalog.json HTTP/1.1\r\nHost: [::1\r\n\r\n".utf8), "Host"),
        ("Host with two colons", Array("GET /catalog.json HTTP/1.1\r\nHost: a:1:2\r\n\r\n".utf8), "Host"),
        ("two Authorization headers", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n".utf8), "Authorization"),
        ("two Range headers", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nRange: bytes=2-3\r\n\r\n".utf8), "Range"),
        ("two If-Modified-Since headers", Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n".utf8), "If-Modified-Since"),
        ("two X-Original-URI headers", Array("GET /_auth HTTP/1.1\r\nHost: x\r\nX-Original-URI: /catalog.json\r\nX-Original-URI: /bundles/x\r\n\r\n".utf8), "X-Original-URI"),
    ]

    @Test(arguments: refused)
    func malformedHeadsAreRefusedAndTheConnectionClosed(_ name: String, _ head: [UInt8], _ reason: String) throws {
        let f = try ServerFixture()
        let before = DirectorySnapshot(f.tree.root)
        let c = try RawConnection(port: f.port)
        c.send(head + Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let r = try c.readResponse()
        #expect(r.status == 400, "\(name): \(r.status) \(r.text)")
        #expect(r.text.contains(reason), "\(name): \(r.text)")
        #expect(r.header("Connection")?.lowercased() == "close", "\(name)")
        #expect(!r.text.contains("\"corpora\"") && !r.text.contains("Demo catalog"), "\(name): a file was served")
        #expect(c.waitForClose(), "\(name): the pipelined request after it was answered")
        #expect(DirectorySnapshot(f.tree.root) == before)
    }

    static let accepted: [(String, String)] = [
        ("plain", "Host: x\r\n"),
        ("Host with a port", "Host: 127.0.0.1:8080\r\n"),
        ("Host as an IPv6 literal", "Host: [::1]:8080\r\n"),
        ("Host as a name with a trailing dot", "Host: Example.COM.\r\n"),
        ("Host with tabs around it", "Host:\t x \t\r\n"),
        ("an empty Host", "Host:\r\n"),
        ("a cookie", "Host: x\r\nCookie: a=1; b=\"2\"\r\n"),
        ("an empty field", "Host: x\r\nX-Empty:\r\n"),
        ("obs-text in a value", "Host: x\r\nX-Name: caf\u{e9}\r\n"),
        ("many fields", "Host: x\r\n" + (0..<200).map { "X-Field-\($0): value number \($0) with some text\r\n" }.joined()),
        ("two If-None-Match headers", "Host: x\r\nIf-None-Match: \"a\"\r\nIf-None-Match: \"b\"\r\n"),
    ]

    @Test(arguments: accepted)
    func wellFormedHeadsAreServed(_ name: String, _ fields: String) throws {
        let f = try ServerFixture()
        let c = try RawConnection(port: f.port)
        c.send("GET /catalog.json HTTP/1.1\r\n" + fields + "\r\n")
        let r = try c.readResponse()
        #expect(r.status == 200, "\(name): \(r.text)")
        #expect(r.body == FileManager.default.contents(atPath: f.tree.dir.url("catalog.json")), "\(name)")
        // Kept alive: a second request on the same connection is answered.
        c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try c.readResponse().status == 200, "\(name)")
    }

    @Test func http10WithoutHostAndBareLineFeedsAreServed() throws {
        let f = try ServerFixture()
        // RFC 9112 §3.2 requires Host only of HTTP/1.1; §2.2 lets a recipient accept a bare LF.
        for head in ["GET /catalog.json HTTP/1.0\r\n\r\n", "GET /catalog.json HTTP/1.1\nHost: x\nX-A: b\n\n"] {
            let r = try ServerTestClient.raw(port: f.port, Array(head.utf8))
            #expect(r.status == 200, "\(head.debugDescription)")
        }
    }

    @Test func aHeadTrickledInPiecesNearTheMemoryLimitIsServed() throws {
        // libmicrohttpd may grow its read buffer while the head arrives; the checks must still hold.
        let f = try ServerFixture()
        let c = try RawConnection(port: f.port)
        c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\n")
        for n in 0..<40 {
            c.send("X-Piece-\(n): " + String(repeating: "v", count: 500) + "\r\n")
            usleep(2_000)
        }
        c.send("\r\n")
        let r = try c.readResponse()
        #expect(r.status == 200, "\(r.text)")
    }
}
