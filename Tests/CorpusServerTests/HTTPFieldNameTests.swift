import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// Header field names compare without regard to ASCII case, and only ASCII case (RFC 9110 §5.1:
/// a field name is a token); methods compare exactly (RFC 9110 §9.1).
@Suite struct HTTPFieldNameTests {
    /// U+212A KELVIN SIGN lower-cases to an ASCII "k" under Unicode rules, so a name holding it
    /// would pass as the token `x-k` if names were lower-cased before the token check.
    @Test func aFieldNameThatOnlyUnicodeCaseFoldingMakesATokenIsRefused() throws {
        let f = try ServerFixture()
        for name in ["X-\u{212A}", "\u{212A}eep-Alive", "X-\u{0130}d"] {
            let c = try RawConnection(port: f.port)
            c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\n\(name): 1\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 400, "\(name.unicodeScalars.map { String($0.value, radix: 16) }): \(r.status) \(r.text)")
            #expect(r.text.contains("field name"), "\(r.text)")
            #expect(c.waitForClose())
        }
    }

    @Test func fieldNamesAreReadInAnyASCIICase() throws {
        let f = try ServerFixture()
        let ranged = try f.get("/catalog.json", headers: ["rAnGe": "bytes=0-1"])
        #expect(ranged.status == 206 && ranged.body.count == 2)
        // Two spellings of one singleton field are still two of it.
        let c = try RawConnection(port: f.port)
        c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nRANGE: bytes=2-3\r\n\r\n")
        let twice = try c.readResponse()
        #expect(twice.status == 400 && twice.text.contains("more than one Range header"), "\(twice.text)")
        let framed = try ServerTestClient.raw(port: f.port, Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\ncontent-LENGTH: 3\r\n\r\nabc".utf8))
        #expect(framed.status == 400 && framed.text.contains("no body"), "\(framed.text)")
    }

    @Test func methodsAreCaseSensitive() throws {
        let f = try ServerFixture()
        for method in ["get", "Get", "head"] {
            let r = try ServerTestClient.request(port: f.port, method, "/healthz")
            #expect(r.status == 405, "\(method)")
            #expect(r.header("Allow") == "GET, HEAD", "\(method)")
        }
        #expect(try ServerTestClient.request(port: f.port, "HEAD", "/healthz").status == 200)
    }
}
