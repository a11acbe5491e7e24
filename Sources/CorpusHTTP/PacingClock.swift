import Foundation

/// The clock a `RateLimit` paces on: monotonic time and a sleep. Sleeps may last longer than asked
/// (a loaded machine schedules the thread late), so pacing reads the time after each one rather
/// than counting what it asked for.
public protocol PacingClock: Sendable {
    /// Nanoseconds on a clock that only moves forward, whatever the wall clock does.
    func now() -> UInt64
    /// Sleeps about `nanoseconds`, possibly longer.
    func sleep(nanoseconds: UInt64)
}

/// The system's monotonic clock (`DispatchTime`: CLOCK_MONOTONIC on Linux, the uptime clock on
/// Apple platforms), what every `RateLimit` of the programs paces on.
public struct MonotonicClock: PacingClock {
    public init() {}
    public func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    public func sleep(nanoseconds: UInt64) { Thread.sleep(forTimeInterval: Double(nanoseconds) / 1e9) }
}
