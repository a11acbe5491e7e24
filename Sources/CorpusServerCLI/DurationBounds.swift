import Foundation
import CorpusCLIKit
import CorpusPublisher
import CorpusServer

/// The durations `corpusd` accepts.
extension DurationOption {
    static let catalogExpiry = DurationOption(range: TreePublisher.expiryRange, examples: "12h, 30d or 2w")
    /// Tokens cannot be revoked, only expire: at most three years, at least a minute.
    /// A presigned URL is a credential for its object until it expires: minutes, not hours.
    static let presignExpiry = DurationOption(range: TimeInterval(StorageRedirect.expiryRange.lowerBound)...TimeInterval(StorageRedirect.expiryRange.upperBound),
                                              examples: "90s, 5m or 15m")
    /// The freshness document: hours, re-signed from cron (`TimestampWriter.expiryRange`).
    static let timestampExpiry = DurationOption(range: TimestampWriter.expiryRange, examples: "6h, 1d or 3d")
    /// A root document: months, signed by people in a ceremony (`RootCeremony.expiryRange`).
    static let rootExpiry = DurationOption(range: RootCeremony.expiryRange, examples: "180d, 365d or 52w")
    static let tokenLifetime = DurationOption(range: 60...(1096 * 86400), examples: "90s, 12h, 30d or 2w")
}
