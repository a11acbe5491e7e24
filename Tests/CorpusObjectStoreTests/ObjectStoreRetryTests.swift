import Foundation
import Testing
import CorpusFormat
import CorpusObjectStore
import CorpusTestSupport

/// The object store asks again on the schedule the client uses (`Backoff`): doubling, capped,
/// and waited without holding a thread, so cancelling the task ends an upload at once.
@Suite struct ObjectStoreRetryTests {
    @Test func theWaitsDoubleUpToTheCap() {
        let retry = ObjectStoreRetry(attempts: 8, firstDelay: 0.5, maxDelay: 3)
        #expect((1...6).map { retry.backoff.delay(afterAttempt: $0) } == [0.5, 1, 2, 3, 3, 3])
        #expect(ObjectStoreRetry().backoff == Backoff(initial: 0.5, maximum: 8))
        #expect(retry.scaled(by: 0.01).backoff == Backoff(initial: 0.005, maximum: 0.03))
    }

    /// An endpoint answering 503 is asked again after a 30 s wait; cancelling the task during
    /// the wait ends the request at once with `cancelled`, and nothing more is sent.
    @Test func cancellingDuringTheWaitEndsTheRequestAtOnce() async throws {
        // The whole test on an executor of its own: in the full parallel suite the blocking work of
        // other suites held the shared pool long enough to miss both the first request's deadline
        // and the 30 s wait (fresh-clone run: the request came late, then a retry was sent).
        let executor = DedicatedExecutor(label: "s3-retry-cancel")
        try await withTaskExecutorPreference(executor) { try await cancelDuringTheWait(on: executor) }
    }

    func cancelDuringTheWait(on executor: DedicatedExecutor) async throws {
        let dir = TempDirectory("s3-retry")
        let server = try MisbehavingServer(root: dir.path) { _ in .status(503) }
        defer { server.stop() }
        let client = try S3Client(endpoint: try S3Endpoint(parsing: server.baseURL, region: "us-east-1"),
                                  credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"),
                                  retry: ObjectStoreRetry(attempts: 4, firstDelay: 30, maxDelay: 30))
        let task = Task(executorPreference: executor) { () async -> ObjectStoreError? in
            do { _ = try await client.head(bucket: "b", key: "tree/catalog.json") } catch { return error as? ObjectStoreError }
            return nil
        }
        #expect(try await Polling.until(seconds: 25) { server.requestCount == 1 }, "the first request never arrived")
        // The wait is 30 s: an end well before it is the cancel's doing (the bound leaves room
        // for a loaded machine).
        let cancelled = ContinuousClock.now
        task.cancel()
        let error = await task.value
        #expect(error == .cancelled(operation: "HEAD", key: "tree/catalog.json"))
        #expect(ContinuousClock.now - cancelled < .seconds(10), "the wait was not cut short")
        #expect(server.requestCount == 1)
    }
}
