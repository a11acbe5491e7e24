import Testing
import CMicroHTTPD
@testable import CorpusServer

/// The typed method, status and header-name values the server is written in.
@Suite struct HTTPTypesTests {
    /// libmicrohttpd writes the status line itself (`MHD_get_reason_phrase_for`); the phrases the
    /// server's types carry must be the ones that go on the wire.
    @Test(arguments: HTTPStatus.all)
    func reasonPhrasesAreTheOnesLibmicrohttpdSends(_ status: HTTPStatus) {
        #expect(String(cString: MHD_get_reason_phrase_for(UInt32(status.code))) == status.reasonPhrase)
        #expect(status.description == "\(status.code) \(status.reasonPhrase)")
    }

    static let sameField: [(String, String)] = [("Content-Length", "content-length"), ("HOST", "host"), ("x-Original-uri", "X-Original-URI")]
    static let otherFields: [(String, String)] = [
        ("Content-Length", "Content-Length "), ("Host", "Hos"),
        // Only ASCII letters fold: KELVIN SIGN is not "k", and DOTLESS/DOTTED I are not "i".
        ("X-\u{212A}", "x-k"), ("X-\u{0130}d", "x-id"), ("X-\u{0131}d", "x-id"),
    ]

    @Test func headerNamesCompareWithoutASCIICaseOnly() {
        for (a, b) in Self.sameField {
            #expect(HTTPHeaderName(a) == HTTPHeaderName(b), "\(a) \(b)")
            #expect(Set([HTTPHeaderName(a), HTTPHeaderName(b)]).count == 1, "\(a) \(b)")
        }
        for (a, b) in Self.otherFields { #expect(HTTPHeaderName(a) != HTTPHeaderName(b), "\(a) \(b)") }
        // A name is sent as spelled.
        #expect(HTTPHeaderName.etag.spelling == "ETag" && HTTPHeaderName("eTaG") == .etag)
    }

    @Test func methodsCompareExactly() {
        #expect(HTTPMethod(rawValue: "GET") == .get)
        #expect(HTTPMethod(rawValue: "get") != .get)
        #expect(RequestHandler.methods.map(\.rawValue) == ["GET", "HEAD"])
    }
}
