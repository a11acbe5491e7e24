import CorpusFormat

/// Exit codes of both commands (docs/cli.md "Exit codes").
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
    case verification = 3
    case entitlement = 4
    case network = 5
    case notFound = 6
    case localIO = 7
}

/// What kind of refusal or failure an `ErrorReport` is. Every domain's errors are mapped to a
/// kind by the CLI module of their executable; `exitCode` is the one map from a kind to the
/// process's exit code, for both executables.
public enum FailureKind: Sendable, CaseIterable {
    /// The command line or what it asked for cannot be done as asked: a mistake, never an attack.
    case usage
    /// Something was refused as untrustworthy: signature, hash, size, rollback, expiry, unsafe input.
    case verification
    /// An entitlement was refused, or the import limit is reached.
    case entitlement
    /// Unavailable after every retry and source.
    case network
    case notFound
    /// Disk full, permissions, a lock held, a damaged file of the home folder.
    case localIO
    /// Unexpected: a bug, or a failure no other kind describes.
    case failure

    /// The kind of a library error's category (a cancelled operation is a failure: exit 1).
    public init(_ category: ErrorCategory) {
        switch category {
        case .verification: self = .verification
        case .network: self = .network
        case .notFound: self = .notFound
        case .localIO: self = .localIO
        case .entitlement: self = .entitlement
        case .usage: self = .usage
        case .cancelled, .failure: self = .failure
        }
    }

    public var exitCode: ExitCode {
        switch self {
        case .usage: .usage
        case .verification: .verification
        case .entitlement: .entitlement
        case .network: .network
        case .notFound: .notFound
        case .localIO: .localIO
        case .failure: .failure
        }
    }
}
