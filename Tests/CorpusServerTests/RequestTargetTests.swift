import Testing
@testable import CorpusServer

/// Table-driven: every request-target form the server must accept, refuse with 400, or hide with 404.
struct RequestTargetTests {
    static let accepted: [(String, [String])] = [
        ("/", []),
        ("/catalog.json", ["catalog.json"]),
        ("/bundles/abc.corpus.zip", ["bundles", "abc.corpus.zip"]),
        ("/bundles%2Fabc.corpus.zip", ["bundles", "abc.corpus.zip"]),   // %2F decodes to a separator once, like nginx
        ("/caf%C3%A9", ["café"]),
        ("/a%2525b", ["a%25b"]),                                      // decoded once only: %25 -> %, never again
        ("/keys/root.pub?x=1", ["keys", "root.pub"]),
        ("/a..b", ["a..b"]),                                          // dots inside a name are fine
    ]

    @Test(arguments: accepted)
    func accepts(_ raw: String, _ segments: [String]) throws {
        #expect(try RequestTarget.parse(raw).segments == segments)
    }

    static let badRequests: [String] = [
        "", "catalog.json", "http://host/catalog.json",
        "/..", "/../etc/passwd", "/bundles/../../etc/passwd", "/%2e%2e/etc/passwd", "/%2E%2E", "/.%2e/x", "/bundles/%2e",
        "/./catalog.json", "/catalog.json%00.png", "/a%00", "/a%01b", "/a%7f", "/a\u{01}b", "/a\\b", "/a%5cb", "/a%5Cb",
        "/a//b", "/keys/", "/%", "/%2", "/%zz", "/%c3%28",
        "/" + String(repeating: "a", count: 5000),
    ]

    @Test(arguments: badRequests)
    func refusesAsBadRequest(_ raw: String) {
        #expect(throws: RequestTarget.Refusal.self) { try RequestTarget.parse(raw) }
        do {
            _ = try RequestTarget.parse(raw)
        } catch {
            #expect(error.status == 400, "\(raw.debugDescription) gave \(error)")
        }
    }

    @Test(arguments: ["/.git/config", "/.htpasswd", "/bundles/.partial.zip", "/%2egit/HEAD"])
    func hidesDotfiles(_ raw: String) {
        #expect(throws: RequestTarget.Refusal.hidden) { try RequestTarget.parse(raw) }
    }

    @Test func decodesQueryParameters() throws {
        let t = try RequestTarget.parse("/_auth?path=%2Fbundles%2Fx.corpus.zip&flag&a=b+c")
        #expect(t.segments == ["_auth"])
        #expect(t.queryValue("path") == "/bundles/x.corpus.zip")
        #expect(t.queryValue("flag") == "")
        #expect(t.queryValue("a") == "b c")
        #expect(throws: RequestTarget.Refusal.self) { try RequestTarget.parse("/_auth?path=%00") }
    }
}
