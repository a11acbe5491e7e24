import Foundation

/// Everything that can go wrong reading, proving or writing a transparency log (docs/format.md
/// "Transparency log"): a malformed note, checkpoint, tile or entry bundle, a signature or proof
/// that does not verify, or a log folder whose immutable files disagree with its checkpoint.
///
/// No case carries key material: a key is named by its note key name only.
public enum TransparencyLogError: Error, Equatable, Sendable {
    case malformedNote(reason: String)
    case malformedCheckpoint(reason: String)
    case malformedKey(reason: String)
    case malformedTile(path: String, reason: String)
    case malformedEntryBundle(path: String, reason: String)
    case malformedLeaf(reason: String)

    /// A signature by a key the verifier knows (same name and key ID) did not verify.
    case signatureInvalid(keyName: String)
    /// No signature by any key the verifier knows: unsigned, or signed by strangers only.
    case noTrustedSignature

    case inclusionProofInvalid(index: UInt64, treeSize: UInt64)
    case consistencyProofInvalid(from: UInt64, to: UInt64)
    /// A proof was asked for sizes or an index the tree does not have (a caller's mistake).
    case outOfRange(reason: String)

    /// A leaf larger than an entry bundle can hold (big-endian uint16 length prefix).
    case leafTooLarge(size: Int)
    /// The tiles in a log folder do not give the root its checkpoint signed: the folder was changed
    /// behind the writer's back, and appending to it would sign a fork.
    case tilesDisagreeWithCheckpoint(treeSize: UInt64)

    /// True when the error is a refusal to trust input (exit code 3 in the CLI), not a caller's mistake.
    public var isVerificationRefusal: Bool {
        switch self {
        case .outOfRange, .leafTooLarge: return false
        default: return true
        }
    }
}

extension TransparencyLogError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .malformedNote(let reason): return "signed note is malformed: \(reason)"
        case .malformedCheckpoint(let reason): return "log checkpoint is malformed: \(reason)"
        case .malformedKey(let reason): return "log key is malformed: \(reason)"
        case .malformedTile(let path, let reason): return "log tile \(path) is malformed: \(reason)"
        case .malformedEntryBundle(let path, let reason): return "log entry bundle \(path) is malformed: \(reason)"
        case .malformedLeaf(let reason): return "log leaf is malformed: \(reason)"
        case .signatureInvalid(let keyName): return "signature by \(keyName) does not verify"
        case .noTrustedSignature: return "no signature by a trusted key"
        case .inclusionProofInvalid(let index, let size): return "inclusion proof of leaf \(index) in tree of size \(size) does not verify"
        case .consistencyProofInvalid(let from, let to): return "consistency proof from tree size \(from) to \(to) does not verify"
        case .outOfRange(let reason): return "log request out of range: \(reason)"
        case .leafTooLarge(let size): return "log leaf of \(size) bytes exceeds 65535"
        case .tilesDisagreeWithCheckpoint(let size): return "the log's tiles do not give the root its checkpoint signed at tree size \(size)"
        }
    }
}
