import Foundation
import CorpusCLIKit
import CorpusPublisher

/// The durations `corpusd` accepts.
extension DurationOption {
    static let catalogExpiry = DurationOption(range: TreePublisher.expiryRange, examples: "12h, 30d or 2w")
    /// Tokens cannot be revoked, only expire: at most three years, at least a minute.
    static let tokenLifetime = DurationOption(range: 60...(1096 * 86400), examples: "90s, 12h, 30d or 2w")
}
