import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// TUF slow retrieval: a server that goes silent and one that trickles are both cut off, and each
/// is reported for what it did ("no data for N s" is not true of a server sending 200 B/s).
@Suite struct SlowTransferTests {
    func fetch(_ env: SyncTestEnvironment, _ server: MisbehavingServer) async throws -> TransportError? {
        do {
            _ = try await env.client.get(HTTPRequest(url: server.baseURL + "/" + env.tree.bundleRef.path, maxBodyBytes: 1 << 20))
            return nil
        } catch let e as TransportError {
            return e
        }
    }

    @Test func aSilentServerIsReportedAsNoData() async throws {
        let env = try SyncTestEnvironment(stallTimeout: 0.3)
        let server = try env.server { _ in .stallAfter(bytes: 10) }
        let error = try #require(try await fetch(env, server))
        #expect(error.description == "no data for 0.3 s")
        #expect(error.isTransient)
    }

    @Test func aTricklingServerIsReportedAsTooSlow() async throws {
        let env = try SyncTestEnvironment(stallTimeout: 0.4)
        // 10 bytes every 50 ms: never silent for 0.4 s, far below the 1024 B/s floor.
        let server = try env.server { _ in .trickle(bytes: 10, pause: 0.05) }
        let error = try #require(try await fetch(env, server))
        #expect(error.description == "slower than 1024 bytes/s over 0.4 s", "\(error)")
        #expect(error.isTransient)
    }

    @Test func theDownloaderSaysWhichAfterEveryAttempt() async throws {
        let env = try SyncTestEnvironment(stallTimeout: 0.4)
        let server = try env.server { _ in .trickle(bytes: 10, pause: 0.05) }
        do {
            _ = try await env.downloader.download(env.tree.bundleRef, from: [Source(baseURL: server.baseURL, isOrigin: true)])
            Issue.record("a trickling source was accepted")
        } catch let e as SyncError {
            #expect(e.description == "unavailable after 2 attempts: slower than 1024 bytes/s over 0.4 s", "\(e)")
        }
    }
}
