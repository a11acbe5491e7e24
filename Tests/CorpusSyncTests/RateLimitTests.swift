import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync
@testable import CorpusHTTP

/// `--limit-rate`: one cap for the whole command. Two downloads run at once from a real loopback
/// server, each on its own `HTTPClient` made from one configuration; together they take as long as
/// their bytes at the cap, not half of it (which is what a per-transfer cap such as libcurl's
/// `CURLOPT_MAX_RECV_SPEED_LARGE` would give).
@Suite struct RateLimitTests {
    @Test(arguments: [("2M", Int64(2 << 20)), ("500K", 512_000), ("500k", 512_000), ("65536", 65536), ("1.5M", Int64(1.5 * 1048576)), ("1G", Int64(1) << 30),
                      // curl(1): "The suffixes (k, M, G, T, P) are 1024 based".
                      ("1T", Int64(1) << 40), ("2p", Int64(2) << 50)])
    func parsesCurlsSyntax(text: String, bytes: Int64) {
        #expect(RateLimit.parse(text)?.bytesPerSecond == bytes)
    }

    @Test(arguments: ["", "M", "2X", "-1", "1023", "0", "2 M", "0x10", "1e3", "2MB"])
    func refusesWhatIsNoRate(text: String) {
        #expect(RateLimit.parse(text) == nil)
    }

    @Test func parallelTransfersShareOneCap() async throws {
        let dir = TempDirectory("rate")
        let size = 384 * 1024
        try dir.write("a.bin", Data(repeating: 0x61, count: size))
        try dir.write("b.bin", Data(repeating: 0x62, count: size))
        let server = try MisbehavingServer(root: dir.path)
        defer { server.stop() }
        var shared = HTTPClientConfiguration()
        shared.rateLimit = RateLimit.parse("256K")
        let configuration = shared
        let url = server.baseURL
        let t0 = Date()
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for name in ["a.bin", "b.bin"] {
                group.addTask {
                    let http = try HTTPClient(configuration: configuration)
                    return try await http.get(HTTPRequest(url: "\(url)/\(name)", maxBodyBytes: 1 << 20)).body.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let seconds = Date().timeIntervalSince(t0)
        #expect(sizes == [size, size])
        // 768 KiB at 256 KiB/s: 3 s, less the 0.1 s burst; a cap per transfer would take 1.5 s. No
        // upper bound: in the whole suite these two tasks wait for the cooperative pool behind
        // hundreds of other tests (a fresh-clone run measured 471 s, the suite's own length, for
        // what takes 3 s alone), so wall time here says nothing about the cap.
        #expect(seconds > 2.6, "took \(seconds) s")
    }

    /// A clock on which every sleep lasts `oversleep` longer than asked, as on a loaded machine
    /// where a sleeping thread is scheduled late.
    final class LateWakingClock: PacingClock, @unchecked Sendable {
        // @unchecked: `time` is only touched while `lock` is held.
        private let lock = NSLock()
        private var time: UInt64 = 50_000_000_000
        let oversleep: UInt64
        init(oversleep: UInt64) { self.oversleep = oversleep }
        func now() -> UInt64 { lock.withLock { time } }
        func sleep(nanoseconds: UInt64) { lock.withLock { time += nanoseconds + oversleep } }
    }

    /// A long booking is waited out to its deadline on the clock, so a thread woken late by each
    /// of its sleeps overshoots once, not once per sleep: 1 MiB at 1 MiB/s books 0.9 s (1 s less
    /// the 0.1 s burst), and with every sleep 20 ms late it ends at most 20 ms after that.
    @Test func lateWakeUpsDoNotAddUp() {
        let clock = LateWakingClock(oversleep: 20_000_000)
        let limit = RateLimit(bytesPerSecond: 1 << 20, clock: clock)
        let start = clock.now()
        #expect(limit.pace(1 << 20, cancellation: nil))
        let waited = Double(clock.now() - start) / 1e9
        #expect(waited >= 0.9 && waited <= 0.92, "waited \(waited) s for a booking of 0.9 s")
    }

    /// In offline mode no client is made, so nothing can be sent.
    @Test func offlineMakesNoClient() {
        var configuration = HTTPClientConfiguration()
        configuration.offline = true
        #expect(throws: SyncError.offline(action: "this command")) { try HTTPClient(configuration: configuration) }
    }
}
