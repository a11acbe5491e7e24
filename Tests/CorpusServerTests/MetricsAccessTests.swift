import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// `/metrics` tells anyone who can read it how busy the host is and how many tokens fail: it is
/// served on the main listener only when that is loopback, or behind a bearer token, or on a
/// listener of its own (docs/operations.md, "What to monitor").
@Suite struct MetricsAccessTests {
    static let scrapeToken = "scrape-7f3c9a1e5b2d4c68"

    @Test(arguments: [("127.0.0.1", MetricsAccess.Place.mainListener), ("127.9.8.7", .mainListener),
                      ("0.0.0.0", .nowhere), ("192.168.1.20", .nowhere), ("10.0.0.1", .nowhere)])
    func byDefaultMetricsAreOnTheMainListenerOnlyWhenItIsLoopback(_ host: String, _ place: MetricsAccess.Place) {
        #expect(MetricsAccess.default(listenHost: host) == MetricsAccess(place: place))
    }

    @Test func offMeansNotFoundWhileTheRestIsServed() throws {
        let f = try ServerFixture { $0.metrics = MetricsAccess(place: .nowhere) }
        #expect(try f.get("/metrics").status == 404)
        #expect(try f.get("/healthz").status == 200)
        #expect(try f.get("/catalog.json").status == 200)
    }

    @Test func aTokenIsRequiredWhenOneIsConfigured() throws {
        let f = try ServerFixture { $0.metrics = MetricsAccess(place: .mainListener, token: Self.scrapeToken) }
        let cases: [(String, [String: String], Int)] = [
            ("no token", [:], 401),
            ("another token", ["Authorization": "Bearer scrape-0000000000000000"], 401),
            ("a prefix of the token", ["Authorization": "Bearer " + Self.scrapeToken.dropLast()], 401),
            ("the token with more", ["Authorization": "Bearer " + Self.scrapeToken + "x"], 401),
            ("basic auth", ["Authorization": "Basic " + Data(Self.scrapeToken.utf8).base64EncodedString()], 401),
            ("the token", ["Authorization": "Bearer " + Self.scrapeToken], 200),
            ("the token, scheme in lower case", ["Authorization": "bearer " + Self.scrapeToken], 200),
        ]
        for (name, headers, status) in cases {
            let r = try f.get("/metrics", headers: headers)
            #expect(r.status == status, "\(name)")
            if status == 401 {
                #expect(r.header("WWW-Authenticate") == "Bearer realm=\"metrics\"", "\(name)")
                #expect(!r.text.contains("corpusd_requests_total"), "\(name)")
            } else {
                #expect(r.text.contains("corpusd_requests_total"), "\(name)")
            }
        }
        #expect(f.eventually { f.logs.all.count == cases.count })
        #expect(!f.logs.lines.contains { $0.contains(Self.scrapeToken) })
    }

    @Test func anOwnListenerServesMetricsAndHealthOnly() throws {
        let f = try ServerFixture { $0.metrics = MetricsAccess(place: .ownListener(host: "127.0.0.1", port: 0), token: Self.scrapeToken) }
        let port = try #require(f.server.metricsPort)
        #expect(port != f.port)
        #expect(try f.get("/metrics").status == 404)
        #expect(try f.get("/catalog.json").status == 200)
        let auth = ["Authorization": "Bearer " + Self.scrapeToken]
        // A request is counted when its response has ended, which may be just after the client read it.
        #expect(try f.eventually {
            let scrape = try ServerTestClient.request(port: port, "GET", "/metrics", headers: auth)
            return scrape.status == 200 && scrape.text.contains("corpusd_requests_total{status=\"200\"}")
        })
        #expect(try ServerTestClient.request(port: port, "GET", "/metrics").status == 401)
        #expect(try ServerTestClient.request(port: port, "GET", "/healthz").status == 200)
        for target in ["/catalog.json", "/", "/_auth", f.bundle("free-guide")] {
            #expect(try ServerTestClient.request(port: port, "GET", target, headers: auth).status == 404, "\(target)")
        }
        // The metrics listener obeys the same request-head rules.
        #expect(try ServerTestClient.raw(port: port, Array("GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8)).status == 400)
        // Stopping the server stops both listeners.
        f.server.stop(grace: .seconds(2))
        #expect((try? RawConnection(port: port, timeout: 1)) == nil)
    }

    @Test func corpusdServeTakesAMetricsListenerAndATokenFile() throws {
        let tree = try ServerTestTree()
        let keys = TempDirectory("metrics-token")
        let tokenFile = try keys.write("scrape.token", Self.scrapeToken + "\n")
        chmod(tokenFile, 0o600)
        let metricsPort = freeLoopbackPort()
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}",
                                                               "--metrics-listen", "127.0.0.1:\(metricsPort)", "--metrics-token-file", tokenFile])
        defer { server.stop() }
        #expect(server.waitForStdout(containing: "metrics on http://127.0.0.1:\(metricsPort)/metrics"), "\(server.stdout) \(server.stderr)")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/metrics").status == 404)
        #expect(try ServerTestClient.request(port: metricsPort, "GET", "/metrics").status == 401)
        #expect(try ServerTestClient.request(port: metricsPort, "GET", "/metrics", headers: ["Authorization": "Bearer " + Self.scrapeToken]).status == 200)
        #expect(!server.stderr.contains(Self.scrapeToken) && !server.stdout.contains(Self.scrapeToken))
    }

    @Test func corpusdServeRefusesAnUnusableTokenFile() throws {
        let tree = try ServerTestTree()
        let keys = TempDirectory("metrics-token")
        let empty = try keys.write("empty.token", "\n")
        let short = try keys.write("short.token", "abc\n")
        let spaced = try keys.write("spaced.token", "two words in a token file\n")
        let cases: [([String], Int32, String)] = [
            (["--metrics-token-file", keys.url("missing.token")], 6, "missing.token"),
            (["--metrics-token-file", empty], 2, "--metrics-token-file"),
            (["--metrics-token-file", short], 2, "--metrics-token-file"),
            (["--metrics-token-file", spaced], 2, "--metrics-token-file"),
            (["--metrics-listen", "nowhere"], 2, "--metrics-listen"),
        ]
        for (args, code, message) in cases {
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:0"] + args, timeout: 30)
            #expect(r.status == code, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("two words"), "\(args): the token file's content was printed")
        }
    }
}
