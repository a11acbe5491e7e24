import Foundation

/// Waiting for something another thread or process does, with a deadline: a poll without one
/// hangs the suite when the awaited thing never happens, where a test must fail and say what it
/// waited for.
public enum Polling {
    /// Checks `condition` every `interval` until it holds (true) or `seconds` have passed (false).
    public static func until(seconds: Double, interval: Duration = .milliseconds(10), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: interval)
        }
        return true
    }
}
