import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// RFC 9110 §5.5: no CR, LF, NUL or other control character in a field value; nothing of a
/// request that breaks the rule is sent, whichever transport runs the suite.
@Suite struct RequestFieldCheckTests {
    @Test(arguments: [
        ("Bearer abc.def.ghi", nil),
        ("gzip,\tdeflate", nil), // a tab inside a value is allowed
        ("abc\r\nX-Injected: yes", "the Authorization header's value holds a control character (byte 3), which no header may carry"),
        ("abc\u{0}", "the Authorization header's value holds a control character (byte 3), which no header may carry"),
        ("a\u{1B}[31m", "the Authorization header's value holds a control character (byte 1), which no header may carry"),
        ("a\u{7F}", "the Authorization header's value holds a control character (byte 1), which no header may carry"),
    ] as [(String, String?)])
    func headerValues(value: String, problem: String?) {
        #expect(RequestFieldCheck.problem(value: value, name: "Authorization") == problem)
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/catalog.json", nil),
        ("http://127.0.0.1:8080/a\r\nHost: evil", "the URL holds a control character (byte 23); a URL writes such bytes percent-encoded"),
        ("http://127.0.0.1:8080/a b", "the URL holds a space (write it as %20)"),
        ("http://127.0.0.1:8080/a\tb", "the URL holds a control character (byte 23); a URL writes such bytes percent-encoded"),
    ] as [(String, String?)])
    func urls(url: String, problem: String?) {
        #expect(RequestFieldCheck.problem(url: url) == problem)
    }

    @Test func headerNamesAreTokens() {
        #expect(RequestFieldCheck.problem(name: "If-None-Match") == nil)
        #expect(RequestFieldCheck.problem(name: "X Bad") != nil)
        #expect(RequestFieldCheck.problem(name: "X:Bad") != nil)
        #expect(RequestFieldCheck.problem(name: "") != nil)
    }

    /// The library's own gate, below any command line: a bearer token, header or user agent with
    /// CR/LF is refused by `HTTPClient` and the server sees no request at all.
    @Test func theClientSendsNothingWhenAValueHoldsCRLF() async throws {
        let env = try SyncTestEnvironment()
        let server = try env.server()
        await #expect(throws: TransportError.unsafeRequest(reason: "the Authorization header's value holds a control character (byte 18), which no header may carry")) {
            try await env.client.get(HTTPRequest(url: server.baseURL + "/catalog.json", bearerToken: "abc.def.ghi\r\nX-Injected: yes", maxBodyBytes: 4096))
        }
        await #expect(throws: TransportError.unsafeRequest(reason: "the If-None-Match header's value holds a control character (byte 1), which no header may carry")) {
            try await env.client.get(HTTPRequest(url: server.baseURL + "/catalog.json", headers: ["If-None-Match": "x\ny"], maxBodyBytes: 4096))
        }
        var configuration = env.client.configuration
        configuration.userAgent = "corpus/1\r\nX-Injected: yes"
        let agent = try HTTPClient(configuration: configuration)
        await #expect(throws: TransportError.unsafeRequest(reason: "the User-Agent header's value holds a control character (byte 8), which no header may carry")) {
            try await agent.get(HTTPRequest(url: server.baseURL + "/catalog.json", maxBodyBytes: 4096))
        }
        #expect(server.requestCount == 0)
    }

    /// Through the failover loop the refusal is the caller's mistake (exit 2 in the CLI), tried
    /// once, never reported as the network being unavailable.
    @Test func theFailoverLoopStopsAtOnceWithAUsageRefusal() async throws {
        let failover = SourceFailover(retry: RetryPolicy(attemptsPerSource: 3))
        let sources = [Source(baseURL: "http://127.0.0.1:9", isOrigin: true), Source(baseURL: "http://127.0.0.1:10", isOrigin: false)]
        let attempts = Collected<String>()
        await #expect(throws: SyncError.unsafeRequest(reason: "x")) {
            try await failover.first(of: sources, file: "catalog.json") { source -> Int in
                attempts.append(source.baseURL)
                throw TransportError.unsafeRequest(reason: "x")
            }
        }
        #expect(attempts.all == ["http://127.0.0.1:9"])
        #expect(SyncError.unsafeRequest(reason: "x").category == .usage)
    }
}
