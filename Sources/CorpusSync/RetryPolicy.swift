import CorpusFormat
import Foundation

/// How often to ask one source again before failing over, and how long to wait in between.
/// Defaults suit real networks; tests shrink them.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts per source (the first try included).
    public var attemptsPerSource: Int
    /// Wait before the second attempt on a source; doubles each time, capped at `maxBackoff`.
    public var initialBackoff: Double
    public var maxBackoff: Double

    public init(attemptsPerSource: Int = 3, initialBackoff: Double = 1, maxBackoff: Double = 16) {
        self.attemptsPerSource = max(1, attemptsPerSource)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// The same attempts with every wait multiplied by `factor` (tests shrink them).
    public func scaled(by factor: Double) -> RetryPolicy {
        RetryPolicy(attemptsPerSource: attemptsPerSource, initialBackoff: initialBackoff * factor, maxBackoff: maxBackoff * factor)
    }

    /// The waits between attempts on one source (`Backoff`, shared with the object store).
    public var backoff: Backoff { Backoff(initial: initialBackoff, maximum: maxBackoff) }

    /// Seconds to wait after failed attempt `attempt` (1-based) before the next one on the same source.
    public func backoff(afterAttempt attempt: Int) -> Double { backoff.delay(afterAttempt: attempt) }

    func sleep(afterAttempt attempt: Int) async throws {
        do { try await backoff.wait(afterAttempt: attempt) } catch { throw SyncError.cancelled }
    }
}
