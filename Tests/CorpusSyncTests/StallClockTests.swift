import Foundation
import Testing
import CorpusSync

/// The stall clock starts when the transfer does, not at the transport's first progress report:
/// on a loaded machine libcurl's first progress callback (or URLSession's first tick) can come
/// late, and a silent server was then reported as "slower than 1024 bytes/s" instead of "no data"
/// (seen in a full-suite run at load 10: HTTPClientTests.stallIsTyped). The sleep only makes the
/// first report later than the stall timeout; no bound on it is assumed.
@Suite struct StallClockTests {
    @Test func aFirstProgressReportAfterTheStallTimeoutIsAStall() {
        let state = TransferState(url: "http://127.0.0.1:1/x", cap: 1 << 20, stallTimeout: 0.2, minimumBytesPerSecond: 1024,
                                  cancellation: nil, onHead: { _ in true }, onBody: { _ in })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(state.progress(downloaded: 0) == false)
        #expect((state.failure as? TransportError) == .stalled(seconds: 0.2), "\(String(describing: state.failure))")
    }
}
