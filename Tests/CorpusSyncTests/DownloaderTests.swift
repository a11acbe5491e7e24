import CorpusFormat
import CorpusTestSupport
import Foundation
import Synchronization
import Testing
@testable import CorpusSync

/// security-cases.md, "Download and transport", and the bundle rows of "Catalog and signatures".
@Suite struct DownloaderTests {
    func origin(_ s: MisbehavingServer) -> Source { Source(baseURL: s.baseURL, isOrigin: true) }
    func mirror(_ s: MisbehavingServer) -> Source { Source(baseURL: s.baseURL, isOrigin: false) }

    /// Writes a partial download as a previous run would have left it.
    func leavePartial(_ env: SyncTestEnvironment, _ bytes: Data) throws {
        try bytes.write(to: URL(fileURLWithPath: env.home.partial(sha256: env.tree.bundleRef.digest)))
    }

    func bundleRequests(_ env: SyncTestEnvironment, _ server: MisbehavingServer) -> [MisbehavingServer.Request] {
        server.requests(for: "/" + env.tree.bundleRef.path)
    }

    func expectComplete(_ env: SyncTestEnvironment, _ done: VerifiedDownload, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(done.path == env.home.partial(sha256: env.tree.bundleRef.digest), sourceLocation: sourceLocation)
        #expect(FileManager.default.contents(atPath: done.path) == env.tree.bundle, sourceLocation: sourceLocation)
    }

    @Test func downloadsVerifiesAndReportsProgress() async throws {
        let env = try SyncTestEnvironment()
        let server = try env.server()
        let reports = Mutex<[DownloadProgress]>([])
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)]) { p in reports.withLock { $0.append(p) } }
        expectComplete(env, done)
        let last = try #require(reports.withLock { $0.last })
        #expect(last.bytesDone == env.tree.bundleRef.size && last.total == env.tree.bundleRef.size && last.source == server.baseURL)
        #expect(bundleRequests(env, server).count == 1)
    }

    @Test func truncatedBodyIsKeptAndResumedWithRangeAndIfRange() async throws {
        let env = try SyncTestEnvironment()
        let server = try env.server { $0.index == 0 ? .truncateAfter(bytes: 100_000) : .status(503) }
        await #expect(throws: SyncError.self) { try await env.downloader.download(env.tree.bundleRef, from: [origin(server)]) }
        // Nothing corrupt was handed out; the good prefix waits to be resumed.
        let part = env.home.partial(sha256: env.tree.bundleRef.digest)
        #expect(FileManager.default.contents(atPath: part) == env.tree.bundle.prefix(100_000))

        server.setBehavior { _ in .normal }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        let resumed = try #require(bundleRequests(env, server).last)
        #expect(resumed.headers["range"] == "bytes=100000-")
        #expect(resumed.headers["if-range"] == bundleRequests(env, server).first.flatMap { _ in etag(of: env.tree.bundle) })
    }

    func etag(of data: Data) -> String { "\"\(SHA256.hex(data).prefix(16))\"" }

    @Test func serverAnswering200ToARangeRestartsFromZero() async throws {
        let env = try SyncTestEnvironment()
        try leavePartial(env, env.tree.bundle.prefix(5000))
        let server = try env.server { _ in .ignoreRange }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        #expect(bundleRequests(env, server).map { $0.headers["range"] } == ["bytes=5000-"])
    }

    @Test func rangeNotSatisfiableDiscardsThePartialAndRestarts() async throws {
        let env = try SyncTestEnvironment()
        try leavePartial(env, env.tree.bundle.prefix(5000))
        let server = try env.server { $0.index == 0 ? .rangeNotSatisfiable : .normal }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        #expect(bundleRequests(env, server).map { $0.headers["range"] } == ["bytes=5000-", nil])
    }

    @Test func partialLargerThanTheFileIsDiscardedBeforeAsking() async throws {
        let env = try SyncTestEnvironment()
        try leavePartial(env, env.tree.bundle + Data(repeating: 1, count: 10))
        let server = try env.server()
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        #expect(bundleRequests(env, server).map { $0.headers["range"] } == [nil])
    }

    @Test func partialWithWrongBytesIsCaughtByTheHashAndRefetchedFromZero() async throws {
        let env = try SyncTestEnvironment()
        try leavePartial(env, Data(repeating: 0xEE, count: 5000))
        let server = try env.server()
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        #expect(bundleRequests(env, server).map { $0.headers["range"] } == ["bytes=5000-", nil])
    }

    @Test func rangeResponseStartingElsewhereIsNotAppended() async throws {
        let env = try SyncTestEnvironment()
        try leavePartial(env, env.tree.bundle.prefix(5000))
        let server = try env.server { $0.index == 0 ? .lieAboutRange(shift: -1000) : .normal }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        #expect(bundleRequests(env, server).map { $0.headers["range"] } == ["bytes=5000-", nil])
    }

    @Test func completePartialIsVerifiedWithoutAnyRequest() async throws {
        let env = try SyncTestEnvironment()
        try leavePartial(env, env.tree.bundle)
        let server = try env.server()
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
        #expect(server.requestCount == 0)
    }

    @Test func extraBytesBeyondContentLengthAreIgnored() async throws {
        let env = try SyncTestEnvironment()
        let server = try env.server { _ in .extraBytes(4096) }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
    }

    @Test func bodyLongerThanTheSignedSizeAbortsAndIsDiscarded() async throws {
        let env = try SyncTestEnvironment()
        let longer = env.tree.bundle + Data(repeating: 0x42, count: 50_000)
        let ref = env.tree.bundleRef
        let honest = try env.server { _ in .content(longer) }
        await env.expectRefusal(.sizeExceeded(file: ref.path, limit: ref.size)) {
            try await env.downloader.download(ref, from: [origin(honest)])
        }
        #expect(bundleRequests(env, honest).count == 1) // a refusal is not retried
    }

    @Test func endlessBodyWithoutContentLengthStopsAtTheSignedSize() async throws {
        let env = try SyncTestEnvironment()
        let ref = env.tree.bundleRef
        let endless = try env.server { _ in .endless }
        await env.expectRefusal(.sizeExceeded(file: ref.path, limit: ref.size)) {
            try await env.downloader.download(ref, from: [origin(endless)])
        }
    }

    @Test func bundleWhoseHashDiffersFromTheCatalogIsRefusedAndDiscarded() async throws {
        let env = try SyncTestEnvironment()
        var tampered = env.tree.bundle
        tampered[1234] ^= 0xFF
        let ref = env.tree.bundleRef
        let served = tampered
        let server = try env.server { _ in .content(served) }
        await env.expectRefusal(.hashMismatch(file: ref.path, expected: ref.digest.hex, actual: SHA256.hex(tampered))) {
            try await env.downloader.download(ref, from: [origin(server)])
        }
    }

    @Test func bundleShorterThanTheCatalogSaysIsRefusedAndDiscarded() async throws {
        let env = try SyncTestEnvironment()
        let ref = env.tree.bundleRef
        let short = Data(env.tree.bundle.prefix(1000))
        let server = try env.server { _ in .content(short) }
        await env.expectRefusal(.sizeMismatch(file: ref.path, expected: ref.size, actual: 1000)) {
            try await env.downloader.download(ref, from: [origin(server)])
        }
    }

    @Test func resumeAgainstAShorterFileIsRefusedAndDiscarded() async throws {
        let env = try SyncTestEnvironment()
        let ref = env.tree.bundleRef
        try leavePartial(env, env.tree.bundle.prefix(500))
        let short = Data(env.tree.bundle.prefix(1000))
        let server = try env.server { _ in .content(short) }
        await #expect(throws: SyncError.sizeMismatch(file: ref.path, expected: ref.size, actual: 1000)) {
            try await env.downloader.download(ref, from: [origin(server)])
        }
        #expect(!FileManager.default.fileExists(atPath: env.home.partial(sha256: ref.digest)))
        #expect(bundleRequests(env, server).map { $0.headers["range"] } == ["bytes=500-"])
    }

    @Test func stalledSourceTimesOutAndTheNextMirrorResumes() async throws {
        let env = try SyncTestEnvironment(stallTimeout: 0.3)
        let slow = try env.server { _ in .stallAfter(bytes: 1000) }
        let good = try env.server()
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(slow), mirror(good)])
        expectComplete(env, done)
        // Two attempts at the stalled origin (the second resumed), then the mirror continued the partial.
        #expect(bundleRequests(env, slow).map { $0.headers["range"] } == [nil, "bytes=1000-"])
        let last = try #require(bundleRequests(env, good).first)
        #expect(last.headers["range"] == "bytes=2000-")
        #expect(last.headers["if-range"] == nil) // validators belong to the URL that issued them
    }

    @Test func tricklingBelowTheMinimumSpeedCountsAsAStallAndFailsOver() async throws {
        let env = try SyncTestEnvironment(stallTimeout: 0.4)
        // 200 bytes/s: never silent for long, but far below the 1 KiB/s floor.
        let slow = try env.server { _ in .trickle(bytes: 10, pause: 0.05) }
        let good = try env.server()
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(slow), mirror(good)])
        expectComplete(env, done)
        #expect(bundleRequests(env, slow).count == 2 && bundleRequests(env, good).count == 1)
    }

    @Test func tricklingSourceStillCompletes() async throws {
        let env = try SyncTestEnvironment(stallTimeout: 2, bundleSize: 40_000)
        let server = try env.server { _ in .trickle(bytes: 8000, pause: 0.02) }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)])
        expectComplete(env, done)
    }

    @Test func firstMirrorFailsAndTheFallbackServesTamperedDataRefused() async throws {
        let env = try SyncTestEnvironment()
        var tampered = env.tree.bundle
        tampered[0] ^= 0x01
        let ref = env.tree.bundleRef
        let down = try env.server { _ in .status(503) }
        let served = tampered
        let evil = try env.server { _ in .content(served) }
        await env.expectRefusal(.hashMismatch(file: ref.path, expected: ref.digest.hex, actual: SHA256.hex(tampered))) {
            try await env.downloader.download(ref, from: [origin(down), mirror(evil)])
        }
        #expect(bundleRequests(env, down).count == 2)
    }

    @Test func tokenGoesOnlyToTheOrigin() async throws {
        let env = try SyncTestEnvironment()
        let down = try env.server { _ in .status(503) }
        let good = try env.server()
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(down), mirror(good)], token: "s3cret-token")
        expectComplete(env, done)
        #expect(down.requests.allSatisfy { $0.headers["authorization"] == "Bearer s3cret-token" })
        #expect(good.requests.allSatisfy { $0.headers["authorization"] == nil })
    }

    /// A gate-only origin redirects a request carrying the token to its object store, which the
    /// remote names as a storage origin: followed, and the recording server sees no token.
    @Test func redirectToANamedStorageOriginIsFollowedWithoutTheToken() async throws {
        let env = try SyncTestEnvironment()
        let storage = try env.server()
        let front = try env.server { _ in .redirect(base: storage.baseURL) }
        let source = Source(baseURL: front.baseURL, isOrigin: true, storageOrigins: [try #require(Remote.storageOrigin(storage.baseURL))])
        let done = try await env.downloader.download(env.tree.bundleRef, from: [source], token: "s3cret-token")
        expectComplete(env, done)
        #expect(front.requests.first?.headers["authorization"] == "Bearer s3cret-token")
        #expect(storage.requests.count == 1 && storage.requests[0].headers["authorization"] == nil)
    }

    /// The same redirect to a host the remote does not name is refused: no request reaches it,
    /// the error names the host (never the target's query) and nothing is left in the home.
    @Test func redirectOfATokenRequestToAnUnnamedHostIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let other = try env.server()
        let front = try env.server { _ in .redirect(base: other.baseURL) }
        let before = env.snapshot
        do {
            _ = try await env.downloader.download(env.tree.bundleRef, from: [origin(front)], token: "s3cret-token")
            Issue.record("expected a refused redirect")
        } catch let SyncError.network(_, last) {
            guard case let .redirectRefused(reason) = last else { Issue.record("expected redirectRefused, got \(last)"); return }
            #expect(reason.contains("does not name as a storage origin") && reason.contains("127.0.0.1:\(other.port)"))
        }
        #expect(other.requests.isEmpty)
        #expect(env.snapshot == before)
    }

    /// Without a token nothing is at stake: a redirect to another host is followed as before.
    @Test func redirectWithoutATokenToAnotherHostIsFollowed() async throws {
        let env = try SyncTestEnvironment()
        let other = try env.server()
        let front = try env.server { _ in .redirect(base: other.baseURL) }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(front)])
        expectComplete(env, done)
        #expect(other.requests.count == 1)
    }

    @Test func redirectWithinTheOriginKeepsTheToken() async throws {
        let env = try SyncTestEnvironment()
        try env.tree.directory.write("moved/" + env.tree.bundleRef.path, env.tree.bundle)
        let holder = Mutex<String>("")
        let server = try env.server { req in req.path.hasPrefix("/moved/") ? .normal : .redirect(base: holder.withLock { $0 } + "/moved") }
        holder.withLock { $0 = server.baseURL }
        let done = try await env.downloader.download(env.tree.bundleRef, from: [origin(server)], token: "s3cret-token")
        expectComplete(env, done)
        #expect(server.requests.count == 2 && server.requests.allSatisfy { $0.headers["authorization"] == "Bearer s3cret-token" })
    }

    @Test func notEnoughFreeSpaceIsRefusedBeforeAnyRequest() async throws {
        let env = try SyncTestEnvironment()
        let server = try env.server()
        let huge = BundleRef(path: env.tree.bundleRef.path, digest: env.tree.bundleRef.digest, size: 1 << 60)
        let before = env.snapshot
        do {
            _ = try await env.downloader.download(huge, from: [origin(server)])
            Issue.record("expected insufficientSpace")
        } catch let SyncError.insufficientSpace(path, needed, margin, available) {
            #expect(path == env.home.downloads && needed == 1 << 60 && margin == 1 << 20 && available < needed)
        }
        #expect(server.requestCount == 0)
        #expect(env.snapshot == before)
    }

    @Test func missingEverywhereIsNotFound() async throws {
        let env = try SyncTestEnvironment()
        let a = try env.server { _ in .status(404) }
        let b = try env.server { _ in .status(404) }
        let ref = env.tree.bundleRef
        await env.expectRefusal(.notFound(file: ref.path)) { try await env.downloader.download(ref, from: [origin(a), mirror(b)]) }
        #expect(a.requestCount == 1 && b.requestCount == 1) // a 404 is not retried
    }

    // A digest like "../../x" or in upper case cannot reach the downloader: `SHA256Digest` refuses
    // it where the catalog decodes (SHA256DigestTests, CatalogFetcherTests).
    @Test(arguments: [
        BundleRef(path: "../outside", digest: .filled("a"), size: 1),
        BundleRef(path: "bundles/x", digest: .filled("a"), size: 0),
    ])
    func fishyBundleReferenceIsRejectedBeforeTouchingDisk(ref: BundleRef) async throws {
        let env = try SyncTestEnvironment()
        let server = try env.server()
        let before = env.snapshot
        await #expect(throws: SyncError.self) { try await env.downloader.download(ref, from: [origin(server)]) }
        #expect(server.requestCount == 0)
        #expect(env.snapshot == before)
    }

    @Test func cancellingStopsTheTransferAndKeepsThePartial() async throws {
        // The whole test on an executor of its own: in the full parallel suite the blocking work of
        // other suites held the shared pool so long that the download did not start, or the wait
        // did not resume before the 30 s stall timeout retried (local runs of the whole suite).
        let executor = DedicatedExecutor(label: "download-cancel")
        try await withTaskExecutorPreference(executor) { try await cancelMidTransfer(on: executor) }
    }

    func cancelMidTransfer(on executor: DedicatedExecutor) async throws {
        let env = try SyncTestEnvironment(stallTimeout: 30)
        let server = try env.server { _ in .stallAfter(bytes: 2000) }
        let downloader = env.downloader
        let ref = env.tree.bundleRef
        let task = Task(executorPreference: executor) {
            try await downloader.download(ref, from: [Source(baseURL: server.baseURL, isOrigin: true)])
        }
        // Wait until the server has sent its bytes and gone silent, and fail naming what was seen if
        // not (the bytes stay on disk even after the 30 s stall timeout, so the bound costs nothing).
        let partial = env.home.partial(sha256: ref.digest), deadline = 120.0
        let arrived = try await Polling.until(seconds: deadline) { FileIO.fileSize(partial) ?? 0 >= 2000 }
        task.cancel()
        try #require(arrived, "after \(deadline) s the partial download holds \(FileIO.fileSize(partial) ?? 0) of the 2000 bytes the server sent")
        await #expect(throws: SyncError.cancelled) { try await task.value }
        #expect(FileIO.fileSize(env.home.partial(sha256: ref.digest)) == 2000)
    }
}
