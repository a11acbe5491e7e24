import Foundation
import Synchronization
import Testing
@testable import CorpusSync

/// A libcurl that refuses an option (`TransportError.httpLibrary`) refuses it for every source
/// and every retry: the loop over sources stops at the first attempt, as for an unsafe request.
@Suite struct HTTPLibraryRefusalTests {
    static let refusal = CurlOptionError(option: "CURLOPT_PROTOCOLS_STR", libcurlVersion: "7.74.0", refusal: .tooOld(minimum: "7.85.0"))

    @Test func theFirstRefusalEndsTheLoopOverSources() async {
        let failover = SourceFailover(retry: RetryPolicy(attemptsPerSource: 3, initialBackoff: 0, maxBackoff: 0))
        let attempts = Mutex(0)
        let sources = [Source(baseURL: "http://127.0.0.1:9", isOrigin: true), Source(baseURL: "http://127.0.0.1:10", isOrigin: false)]
        await #expect(throws: SyncError.httpLibrary(Self.refusal)) {
            try await failover.first(of: sources, file: "catalog.json") { _ -> Int in
                attempts.withLock { $0 += 1 }
                throw TransportError.httpLibrary(Self.refusal)
            }
        }
        #expect(attempts.withLock { $0 } == 1)
    }
}
