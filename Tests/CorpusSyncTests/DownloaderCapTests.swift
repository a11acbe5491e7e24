import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// Checks of the downloader that other tests only reach together with another check.
@Suite struct DownloaderCapTests {
    func origin(_ s: MisbehavingServer) -> Source { Source(baseURL: s.baseURL, isOrigin: true) }

    @Test func aCompletePartialOfTheRightSizeWithWrongBytesIsNotHandedOut() async throws {
        let env = try SyncTestEnvironment()
        let ref = env.tree.bundleRef
        var wrong = env.tree.bundle
        wrong[wrong.count / 2] ^= 0xFF
        try wrong.write(to: URL(fileURLWithPath: env.home.partial(sha256: ref.digest)))
        let server = try env.server()
        let done = try await env.downloader.download(ref, from: [origin(server)])
        #expect(FileManager.default.contents(atPath: done.path) == env.tree.bundle)
        // The hash refused the partial without a request, then the bundle came whole from zero.
        #expect(server.requests(for: "/" + ref.path).map { $0.headers["range"] } == [nil])
    }

    @Test func aResumedRangeCarryingMoreThanRemainsStopsAtTheSignedSize() async throws {
        let env = try SyncTestEnvironment()
        let ref = env.tree.bundleRef
        try env.tree.bundle.prefix(100_000).write(to: URL(fileURLWithPath: env.home.partial(sha256: ref.digest)))
        // 206 with a true Content-Range, no Content-Length, and 1000 bytes past the end: the body
        // cap (the whole size) would let them in; only the per-chunk cap on the partial stops them.
        let server = try env.server { _ in .overlongRange(extra: 1000) }
        await env.expectRefusal(.sizeExceeded(file: ref.path, limit: ref.size), except: [ref.digest.hex]) {
            try await env.downloader.download(ref, from: [origin(server)])
        }
        #expect(!FileManager.default.fileExists(atPath: env.home.partial(sha256: ref.digest)), "the partial is discarded")
        #expect(server.requests(for: "/" + ref.path).map { $0.headers["range"] } == ["bytes=100000-"])
    }
}

extension SyncTestEnvironment {
    /// `expectRefusal`, for a refusal that removes a partial the test left (named by its hash).
    func expectRefusal<T>(_ expected: SyncError, except partials: [String], sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> T) async {
        let ignored = Set(partials.flatMap { ["downloads/\($0).part", "downloads/\($0).part.json"] })
        await expectRefusal(described: "\(expected)", snapshot: { DirectorySnapshot(self.home.root) { ignored.contains($0) } },
                            sourceLocation: sourceLocation, { #expect($0 == expected, sourceLocation: sourceLocation) }, body)
    }
}
