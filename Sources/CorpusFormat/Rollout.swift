import Foundation

/// A phased rollout of one catalog entry (docs/format.md "Channels and rollouts"): the version is
/// offered to a share of clients that grows linearly from 0 at `start` to all of them at
/// `start + duration`. Which clients come first is decided on each client from its own bucket
/// (`RolloutBucket`), never by the server, so a rollout cannot single a device out.
public struct Rollout: Codable, Hashable, Sendable {
    /// When the rollout begins, `YYYY-MM-DDTHH:MM:SSZ` (`Timestamp`).
    public var start: String
    /// How long until every client is offered the version, e.g. `7d`, `48h` (`Timestamp.duration`).
    public var duration: String

    public init(start: Date, duration: String) {
        self.start = Timestamp.format(start)
        self.duration = duration
    }

    public var startDate: Date? { Timestamp.parse(start) }
    public var seconds: TimeInterval? { Timestamp.duration(duration) }

    /// The share of clients offered the version at `now`, in [0, 1]; nil when the rollout is malformed.
    public func share(at now: Date) -> Double? {
        guard let startDate, let seconds else { return nil }
        let elapsed = now.timeIntervalSince(startDate)
        guard elapsed >= 0 else { return 0 }
        return min(1, elapsed / seconds)
    }

    /// True when a client whose bucket is `bucket` (in [0, 1)) is offered the version at `now`:
    /// the rollout has begun and the share reached so far (elapsed / duration) is at least its bucket.
    public func offers(bucket: Double, at now: Date) -> Bool {
        guard let startDate, now >= startDate, let share = share(at: now) else { return false }
        return share >= bucket
    }

    /// True once every client is offered it.
    public func isComplete(at now: Date) -> Bool { (share(at: now) ?? 0) >= 1 }
}
