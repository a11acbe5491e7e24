import Foundation

/// A task executor with a thread of its own (a serial Dispatch queue), for a test whose steps must
/// follow one another without waiting for the shared cooperative pool: on a loaded machine the
/// blocking work of other suites can hold that pool for minutes, longer than libcurl keeps an idle
/// connection for reuse (118 s), which a connection-reuse test would misread as a new connection.
/// Use it with `withTaskExecutorPreference`; child tasks follow the preference.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: the queue is the only state, and Dispatch queues are thread-safe.
    private let queue: DispatchQueue

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
