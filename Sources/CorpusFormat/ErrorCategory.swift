/// What kind of refusal or failure an error is, in the terms both command lines turn into exit
/// codes (docs/cli.md "Exit codes"). Each library classifies its own errors into one of these
/// once; the command lines add only their hints.
public enum ErrorCategory: Sendable, Equatable {
    /// Refused as untrustworthy: signature, hash, size, rollback, expiry, unsafe input.
    case verification
    /// Unavailable after every retry and source.
    case network
    case notFound
    /// Disk full, permissions, a lock held, a damaged file of the home folder.
    case localIO
    /// An entitlement was refused, or the import limit is reached.
    case entitlement
    case cancelled
    /// The caller asked for something that cannot be done as asked (a mistake, not an attack).
    case usage
    /// Unexpected: a bug, or a failure of a kind no other category describes.
    case failure
}
