import Foundation

/// The range a duration option accepts (`Option.duration("--expires", .catalogExpiry, …)`), so an
/// absurd value (`99999999d`, a date no client can represent) is a usage error naming the bound,
/// not a catalog or token every client refuses later.
public struct DurationOption: Sendable {
    public let range: ClosedRange<TimeInterval>
    public let examples: String

    public init(range: ClosedRange<TimeInterval>, examples: String) {
        self.range = range
        self.examples = examples
    }

    /// The accepted range as a user would type it, e.g. `from 1h to 366d`.
    public var bounds: String { "from \(span)" }

    /// `1h to 366d`, as `--help` shows it after `DURATION`.
    public var span: String { "\(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))" }

    /// Seconds in the largest unit of `Timestamp.duration` that divides them (`86400` → `1d`).
    public static func format(_ seconds: TimeInterval) -> String {
        let s = Int(seconds)
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where s % size == 0 { return "\(s / size)\(unit)" }
        return "\(s)s"
    }
}
