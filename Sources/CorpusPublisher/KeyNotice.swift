import Foundation
import CorpusFormat

/// What a publish says about the tree's keys, once per run: costs the operator chose or must act
/// on soon. None is a refusal.
public enum KeyNotice: Equatable, Sendable {
    /// A single-key tree: the key on this host signs roots, catalogs and timestamps alike.
    case oneKeyHoldsEveryRole(keyID: String)
    /// The newest root expires within `rootExpiryWarning`; clients refuse it afterwards.
    case rootExpiresSoon(version: Int, expires: String)
    /// The newest root has expired: clients refuse the tree until root N+1 is published.
    case rootExpired(version: Int, expires: String)
    /// The catalog key is no timestamp key and no `--timestamp-key` was given: `timestamp.json`
    /// still names the previous catalog.
    case timestampNotUpdated(rootVersion: Int, timestampKeys: [String])

    /// How long before a root expires the publisher starts saying so (as `corpus status` does).
    public static let rootExpiryWarning: TimeInterval = 30 * 86400

    /// The notices a publish under `root` (as `now`) earns.
    static func notices(root: RootRoles, timestampSigned: Bool, now: Date) -> [KeyNotice] {
        var out: [KeyNotice] = []
        if root.format == 1 { out.append(.oneKeyHoldsEveryRole(keyID: root.role(.root).keyIDs[0].description)) }
        if let expires = root.expires {
            if expires <= now {
                out.append(.rootExpired(version: root.version, expires: Timestamp.format(expires)))
            } else if expires.timeIntervalSince(now) < rootExpiryWarning {
                out.append(.rootExpiresSoon(version: root.version, expires: Timestamp.format(expires)))
            }
        }
        if !timestampSigned {
            out.append(.timestampNotUpdated(rootVersion: root.version, timestampKeys: root.role(.timestamp).keyIDs.map(\.description)))
        }
        return out
    }

    /// A stable name for scripts (`--json`).
    public var code: String {
        switch self {
        case .oneKeyHoldsEveryRole: "single-key"
        case .rootExpiresSoon: "root-expires-soon"
        case .rootExpired: "root-expired"
        case .timestampNotUpdated: "timestamp-not-updated"
        }
    }

    public var message: String {
        switch self {
        case let .oneKeyHoldsEveryRole(keyID):
            return "key \(keyID) holds every role of this tree (root, catalog, timestamp): whoever copies it from this host can sign "
                + "the next root and keep the tree's clients for good; move the root offline with corpusd root draft (docs/operations.md)"
        case let .rootExpiresSoon(version, expires):
            return "root \(version) expires at \(expires); clients refuse the tree after that: have the root holders sign root \(version + 1) (corpusd root draft)"
        case let .rootExpired(version, expires):
            return "root \(version) expired at \(expires); clients refuse the tree until the root holders publish root \(version + 1) (corpusd root draft)"
        case let .timestampNotUpdated(rootVersion, keys):
            return "timestamp.json was not updated (no timestamp key of root \(rootVersion) was given: \(keys.joined(separator: ", "))); "
                + "run corpusd timestamp PUBLIC_DIR --key TIMESTAMP_KEY, or publish with --timestamp-key"
        }
    }
}
