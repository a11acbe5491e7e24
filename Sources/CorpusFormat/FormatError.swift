import Foundation

/// Everything that can go wrong reading, writing or verifying CorpusSync formats.
///
/// Security refusals have their own cases so callers (and the CLI's exit-code map)
/// can tell an attack or corruption apart from a plain I/O or usage problem.
/// No case carries secret material: key bytes never reach a description.
public enum FormatError: Error, Equatable, Sendable {
    // Encoding problems in files we were handed.
    case malformed(what: String, reason: String)
    case unsupported(what: String, reason: String)

    // Signature refusals.
    case signatureMissing(file: String)
    case signatureInvalid(what: String)
    case keyIDMismatch(expected: String, actual: String)
    case untrustedKey(keyID: String)

    // Content refusals.
    case hashMismatch(member: String, expected: String, actual: String)
    case sizeMismatch(member: String, expected: Int64, actual: Int64)
    case sizeExceeded(member: String, limit: Int64)

    // Unsafe archives.
    case unsafeMemberName(String)
    case memberNotAllowed(String)
    case duplicateMember(String)
    case symlinkMember(String)
    case missingMember(String)
    case archiveInconsistent(reason: String)

    // Local I/O.
    case io(operation: String, path: String, errno: Int32)
    case crypto(operation: String)

    /// True when the error is a refusal to trust input (exit code 3 in the CLI).
    public var isVerificationRefusal: Bool {
        switch self {
        case .io, .crypto: return false
        default: return true
        }
    }
}

extension FormatError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .malformed(what, reason): return "\(what) is malformed: \(reason)"
        case let .unsupported(what, reason): return "\(what) is not supported: \(reason)"
        case let .signatureMissing(file): return "no signature for \(file)"
        case let .signatureInvalid(what): return "the signature of \(what) does not verify"
        case let .keyIDMismatch(expected, actual): return "signed by key \(actual), expected key \(expected)"
        case let .untrustedKey(keyID): return "signed by key \(keyID), which is not trusted"
        case let .hashMismatch(member, expected, actual): return "\(member): SHA-256 is \(actual), the signed manifest says \(expected)"
        case let .sizeMismatch(member, expected, actual): return "\(member): size is \(actual) bytes, the signed manifest says \(expected)"
        case let .sizeExceeded(member, limit): return "\(member): more than the signed size of \(limit) bytes"
        case let .unsafeMemberName(name): return "unsafe member name \(name.debugDescription)"
        case let .memberNotAllowed(name): return "member \(name.debugDescription) is not allowed in a corpus bundle"
        case let .duplicateMember(name): return "member \(name.debugDescription) appears more than once"
        case let .symlinkMember(name): return "member \(name.debugDescription) is a symbolic link"
        case let .missingMember(name): return "member \(name) is missing"
        case let .archiveInconsistent(reason): return "archive is inconsistent: \(reason)"
        case let .io(operation, path, code): return "\(operation) \(path): \(String(cString: strerror(code)))"
        case let .crypto(operation): return "cryptography failed: \(operation)"
        }
    }
    public var errorDescription: String? { description }
}

extension FormatError {
    /// A memory map that failed, as the format layer reports it: `io` naming the call, and for a
    /// path that is not a regular file `map` with EINVAL.
    public init(_ error: MappedFileError) {
        self = .io(operation: error.operation, path: error.path, errno: error.errno)
    }
}
