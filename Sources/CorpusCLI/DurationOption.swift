import Foundation
import CorpusFormat
import CorpusPublisher

/// A duration flag (`--expires 30d`) with the range its command accepts, so an absurd value
/// (`99999999d`, a date no client can represent) is a usage error naming the bound, not a
/// catalog or token every client refuses later.
struct DurationOption {
    let name: String
    let range: ClosedRange<TimeInterval>
    let examples: String

    static let catalogExpiry = DurationOption(name: "--expires", range: TreePublisher.expiryRange, examples: "12h, 30d or 2w")
    /// Tokens cannot be revoked, only expire: at most three years, at least a minute.
    static let tokenLifetime = DurationOption(name: "--expires", range: 60...(1096 * 86400), examples: "90s, 12h, 30d or 2w")

    /// The accepted range as a user would type it, e.g. `from 1h to 366d`.
    var bounds: String { "from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))" }

    /// Parses the flag's value (`Timestamp.duration`) and checks it against the range.
    func parse(_ text: String) throws -> TimeInterval {
        guard let seconds = Timestamp.duration(text), range.contains(seconds) else {
            throw UsageError.invalidValue(option: name, value: text, expected: "a duration \(bounds), like \(examples)")
        }
        return seconds
    }

    /// Seconds in the largest unit of `Timestamp.duration` that divides them (`86400` → `1d`).
    static func format(_ seconds: TimeInterval) -> String {
        let s = Int(seconds)
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where s % size == 0 { return "\(s / size)\(unit)" }
        return "\(s)s"
    }
}
