import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// Slowloris that stays under the inactivity timeout: one header line at a time, each well within
/// it, so only a bound on the whole request head closes the connection.
@Suite struct RequestHeadTimeoutTests {
    @Test func aHeadTrickledBelowTheInactivityTimeoutIsCutOffAtTheHeadBound() throws {
        let f = try ServerFixture {
            $0.connectionTimeout = 5
            $0.requestHeadTimeout = 2
        }
        let c = try RawConnection(port: f.port, timeout: 8)
        c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\n")
        let start = ContinuousClock.now
        var sent = 0
        var closed = false
        // 24 lines, one every 500 ms: 12 s in all, never 5 s without a byte.
        while sent < 24 {
            usleep(500_000)
            if c.peerClosed() { closed = true; break }
            c.send("X-Slow-\(sent): still coming\r\n")
            sent += 1
        }
        let elapsed = ContinuousClock.now - start
        #expect(closed, "the server kept a trickling head open for \(elapsed)")
        #expect(sent < 24)
        // Others are served all along.
        #expect(try f.get("/healthz").status == 200)
    }

    @Test func aKeptAliveConnectionGetsAFreshBoundForEachRequest() throws {
        let f = try ServerFixture {
            $0.connectionTimeout = 5
            $0.requestHeadTimeout = 2
        }
        let c = try RawConnection(port: f.port, timeout: 8)
        // Three requests over about 3.6 s on one connection, each head arriving at once: none is cut off.
        for _ in 0..<3 {
            c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try c.readResponse().status == 200)
            usleep(1_200_000)
        }
        #expect(!c.peerClosed())
    }

    @Test func theBoundDoesNotCutADownloadThatTakesLonger() throws {
        let size = 24 << 20
        let f = try ServerFixture(specs: [.init("big", .free, size: size)]) {
            $0.requestHeadTimeout = 1
        }
        let c = try RawConnection(port: f.port, timeout: 10)
        c.send("GET \(f.bundle("big")) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try c.readResponse(maxBody: 1)
        #expect(head.status == 200)
        usleep(2_500_000)   // the client reads nothing for longer than the head bound
        let rest = try c.read(size - 1)
        #expect(head.body + rest == f.tree.bundleBytes["big"])
    }
}

extension RawConnection {
    /// True when the peer has closed (EOF or reset) the connection; looks without waiting or consuming.
    func peerClosed() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n == 0 { return true }
        if n < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        return false
    }
}
