import Foundation
import Synchronization
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// security-cases.md, "Server": traversal, smuggling, oversized headers, slow and flooding clients.
@Suite struct ServerAbuseTests {
    @Test func nothingOutsideTheRootIsEverServed() throws {
        let f = try ServerFixture()
        let outside = TempDirectory("outside")
        let secretPath = try outside.write("secret.txt", "TOP-SECRET-OUTSIDE-THE-TREE")
        symlink(secretPath, f.tree.dir.url("leak.txt"))
        symlink(outside.path, f.tree.dir.url("linked"))
        symlink(f.tree.dir.url("index.html"), f.tree.dir.url("inside-link.html"))
        try f.tree.dir.write(".hidden/secret.txt", "TOP-SECRET-DOTFILE")
        let before = DirectorySnapshot(f.tree.root)
        let cases: [(String, Int)] = [
            ("/../../../../etc/passwd", 400), ("/%2e%2e/%2e%2e/etc/passwd", 400), ("/%2E%2E/", 400),
            ("/bundles/..%2f..%2fetc%2fpasswd", 400), ("/bundles/%2e%2e/catalog.json", 400), ("/./catalog.json", 400),
            ("/catalog.json%00.png", 400), ("/index.html%0d%0aX-Injected:%20yes", 400), ("/a%01b", 400), ("/a%7f", 400),
            ("/index.html\\..\\catalog.json", 400), ("/a%5c..%5ccatalog.json", 400), ("//etc/passwd", 400), ("/keys/", 400),
            ("/%zz", 400), ("/%c0%ae%c0%ae/etc/passwd", 400),
            ("/.hidden/secret.txt", 404), ("/%2ehidden/secret.txt", 404),
            ("/leak.txt", 404), ("/linked/secret.txt", 404), ("/inside-link.html", 404), ("/keys", 404), ("/bundles", 404),
            ("/no-such-file", 404), ("/%252e%252e/catalog.json", 404),
        ]
        for (target, status) in cases {
            let r = try ServerTestClient.raw(port: f.port, Array("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(r.status == status, "\(target)")
            #expect(!r.text.contains("TOP-SECRET") && !r.text.contains("root:"), "\(target)")
        }
        // Raw control bytes in the request line never reach a file either: 400, and the
        // connection closed (RFC 9112 §2.2: the rest of the stream is not trusted).
        let c = try RawConnection(port: f.port)
        c.send("GET /a\u{01}b HTTP/1.1\r\nHost: x\r\n\r\n")
        let r = try c.readResponse()
        #expect(r.status == 400)
        #expect(r.header("Connection")?.lowercased() == "close")
        #expect(c.waitForClose())
        #expect(DirectorySnapshot(f.tree.root) == before)
    }

    @Test func requestBodiesAndAmbiguousFramingAreRefusedAndTheConnectionClosed() throws {
        let f = try ServerFixture()
        let cases: [(String, String)] = [
            ("body on GET", "GET /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
            ("two Content-Lengths", "GET /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n"),
            ("conflicting Content-Lengths", "GET /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 7\r\n\r\nsmuggle"),
            ("Transfer-Encoding", "GET /catalog.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            ("TE and CL", "GET /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            ("body on HEAD", "HEAD /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"),
        ]
        for (name, request) in cases {
            let c = try RawConnection(port: f.port)
            c.send(request + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = try c.readResponse(bodyless: request.hasPrefix("HEAD"))
            #expect(r.status == 400, "\(name)")
            #expect(r.header("Connection")?.lowercased() == "close", "\(name)")
            // The pipelined request after it must not be answered: the stream is no longer trusted.
            #expect(c.waitForClose(), "\(name)")
        }
        // An explicit empty body is harmless.
        #expect(try f.get("/catalog.json", headers: ["Content-Length": "0"]).status == 200)
    }

    @Test func oversizedHeadersAreRefusedAndTheServerStaysUp() throws {
        let f = try ServerFixture { $0.connectionMemoryLimit = 16 * 1024 }
        let c = try RawConnection(port: f.port)
        c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-Filler: " + String(repeating: "a", count: 64 * 1024) + "\r\n\r\n")
        let r = try c.readResponse()
        #expect(r.status == 431)
        #expect(c.waitForClose())
        #expect(try f.get("/healthz").status == 200)
    }

    @Test func slowClientsAndFloodsDoNotStopOthers() throws {
        let f = try ServerFixture {
            $0.perIPConnectionLimit = 6
            // 4 s, not 2: a fresh-clone CI run beside two fuzzers at nice -5 left this test's own
            // request unsent for over 2 s, and the server rightly timed it out. Still far under the
            // 10 s the slow connections' reads wait below.
            $0.connectionTimeout = 4
        }
        // Slowloris: four connections that never finish their headers.
        var slow: [RawConnection] = []
        for _ in 0..<4 {
            let c = try RawConnection(port: f.port)
            c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.append(c)
        }
        #expect(try f.get("/catalog.json").status == 200)
        // A flood from one address: beyond the per-IP limit connections are dropped at once.
        let idle = try (0..<2).map { _ in try RawConnection(port: f.port) }
        let excess = try RawConnection(port: f.port, timeout: 5)
        excess.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(excess.waitForClose(), "connection over the per-IP limit was served")
        // The inactivity timeout frees the slow connections (read timeout 10 s >> server timeout 4 s).
        for c in slow + idle { #expect(c.waitForClose()) }
        // libmicrohttpd gives a connection's per-IP slot back when it cleans the connection up,
        // a moment after the client sees the close; a loaded CI run saw that moment. So the
        // slots must come back within the fixture's 10 s, not at the instant of the close.
        #expect(f.eventually { (try? f.get("/healthz"))?.status == 200 })
        withExtendedLifetime(slow) {}
    }

    @Test func gracefulStopLetsADownloadInFlightFinish() throws {
        let big = 24 << 20
        let f = try ServerFixture(specs: [.init("big", .free, size: big)])
        let expected = f.tree.bundleBytes["big"]!
        let c = try RawConnection(port: f.port)
        c.send("GET \(f.bundle("big")) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try c.readResponse(maxBody: 1)   // headers and one byte; the rest waits in kernel buffers
        #expect(head.status == 200)
        nonisolated(unsafe) let server = f.server
        let result = Mutex<Bool?>(nil)
        let stopper = Thread { let ok = server.stop(grace: .seconds(60)); result.withLock { $0 = ok } }
        stopper.start()
        // New connections are refused once stopping began, while the download is still going.
        #expect(f.eventually { (try? RawConnection(port: f.port, timeout: 1)) == nil })
        #expect(result.withLock { $0 } == nil, "stop returned before the download finished")
        let rest = try c.read(big - 1)
        #expect(head.body + rest == expected)
        #expect(f.eventually { result.withLock { $0 } != nil })
        #expect(result.withLock { $0 } == true)
    }
}
