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

    /// Seconds to wait after failed attempt `attempt` (1-based) before the next one on the same source.
    public func backoff(afterAttempt attempt: Int) -> Double {
        min(maxBackoff, initialBackoff * pow(2, Double(max(0, attempt - 1))))
    }

    func sleep(afterAttempt attempt: Int) async throws {
        let seconds = backoff(afterAttempt: attempt)
        guard seconds > 0 else { return }
        do { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) } catch { throw SyncError.cancelled }
    }
}
