import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// `--limit-rate`: one cap for the whole command. Two downloads run at once from a real loopback
/// server, each on its own `HTTPClient` made from one configuration; together they take as long as
/// their bytes at the cap, not half of it (which is what a per-transfer cap such as libcurl's
/// `CURLOPT_MAX_RECV_SPEED_LARGE` would give).
@Suite struct RateLimitTests {
    @Test(arguments: [("2M", Int64(2 << 20)), ("500K", 512_000), ("500k", 512_000), ("65536", 65536), ("1.5M", Int64(1.5 * 1048576)), ("1G", Int64(1) << 30)])
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

    /// In offline mode no client is made, so nothing can be sent.
    @Test func offlineMakesNoClient() {
        var configuration = HTTPClientConfiguration()
        configuration.offline = true
        #expect(throws: SyncError.offline(action: "this command")) { try HTTPClient(configuration: configuration) }
    }
}
