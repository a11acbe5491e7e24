import Foundation

/// A transfer's progress drawn on one terminal line: `name ████░░░░ 1.2 MiB/3.4 MiB 512.0 KiB/s ETA 4s`.
public enum ProgressBar {
    public static let width = 24

    /// `limit`: the cap in force (`--limit-rate`), shown after the rate, e.g. `(limit 2.0 MiB/s)`.
    public static func line(_ name: String, done: Int64, total: Int64, bytesPerSecond: Double, eta: Double?, limit: String? = nil) -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 0
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let etaText = eta.map { String(format: " ETA %.0fs", $0) } ?? ""
        return "\(name) \(bar) \(ByteFormat.size(done))/\(ByteFormat.size(total)) \(ByteFormat.size(Int64(bytesPerSecond)))/s\(limit.map { " (limit \($0))" } ?? "")\(etaText)   "
    }
}

/// Lets a progress event through at most once per `interval` seconds, and always the final one,
/// so a fast transfer does not flood the terminal or a log.
public struct RedrawThrottle: Sendable {
    public let interval: TimeInterval
    private var last = Date.distantPast

    public init(interval: TimeInterval) { self.interval = interval }

    public mutating func allows(final: Bool, now: Date = Date()) -> Bool {
        guard final || now.timeIntervalSince(last) >= interval else { return false }
        last = now
        return true
    }
}
