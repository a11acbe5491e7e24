import Foundation

/// How long to wait before asking again: `initial` after the first failed attempt, doubled after
/// each further one, never more than `maximum`. The one schedule of the client's retries
/// (`CorpusSync.RetryPolicy`) and the object store's (`CorpusObjectStore.ObjectStoreRetry`); here
/// because it is a pure value both modules already depend on.
public struct Backoff: Sendable, Hashable {
    public var initial: Double
    public var maximum: Double

    public init(initial: Double, maximum: Double) {
        self.initial = initial
        self.maximum = maximum
    }

    /// Seconds to wait after failed attempt `attempt` (1-based) before the next one.
    public func delay(afterAttempt attempt: Int) -> Double {
        min(maximum, initial * pow(2, Double(max(0, attempt - 1))))
    }

    /// Every wait multiplied by `factor` (`CORPUS_RETRY_SCALE`: tests shrink them).
    public func scaled(by factor: Double) -> Backoff { Backoff(initial: initial * factor, maximum: maximum * factor) }

    /// Waits `delay(afterAttempt:)` without holding a thread (`Task.sleep`); throws when the
    /// calling task is cancelled, at once.
    public func wait(afterAttempt attempt: Int) async throws(CancellationError) {
        let seconds = delay(afterAttempt: attempt)
        guard seconds > 0 else { return }
        do { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) } catch { throw CancellationError() }
    }
}
