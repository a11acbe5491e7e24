/// Everything that can go wrong reading or writing an age file (C2SP age): a header or key that
/// does not parse, and the refusals of a file that does not decrypt.
///
/// Refusals of what a file claims (a header for another identity, a bad header MAC, a chunk whose
/// tag fails, a payload cut short or extended) have their own cases, apart from text that merely
/// does not parse. No case carries key material.
public enum AgeError: Error, Equatable, Sendable {
    /// The header does not follow the grammar of C2SP age "ABNF definition of file header".
    case malformedHeader(reason: String)
    /// The version line names a version other than v1.
    case unsupportedVersion(String)
    /// The header is longer than this reader accepts before its MAC line.
    case headerTooLong(limit: Int)
    /// An X25519 stanza breaks its rules (arguments, share length, body length).
    case malformedStanza(reason: String)
    /// An `AGE-SECRET-KEY-1…` or `age1…` string that does not decode.
    case malformedKey(what: String, reason: String)

    // Refusals.
    /// No stanza unwraps with the given identities: a header for another device, or a wrong key.
    case noMatchingIdentity
    /// An X25519 share whose shared secret is all zeros (a low-order point).
    case lowOrderShare
    /// The header MAC does not verify under the unwrapped file key.
    case headerMACMismatch
    /// The ChaCha20-Poly1305 tag of STREAM chunk `chunk` (from 0) does not verify.
    case chunkAuthenticationFailed(chunk: UInt64)
    /// The payload ends before its final chunk (or before its nonce).
    case truncatedPayload(afterChunks: UInt64)
    /// Bytes follow the final chunk.
    case trailingData(afterChunk: UInt64)
    /// The final chunk is empty although earlier chunks exist.
    case emptyFinalChunk(chunk: UInt64)

    case crypto(operation: String)

    /// True when the error refuses to trust the input (exit code 3 in the CLI).
    public var isVerificationRefusal: Bool {
        if case .crypto = self { return false }
        return true
    }
}

extension AgeError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .malformedHeader(reason): return "the age header is malformed: \(reason)"
        case let .unsupportedVersion(version): return "age version \(TerminalText.sanitizeLine(version)) is not supported"
        case let .headerTooLong(limit): return "the age header is longer than \(limit) bytes"
        case let .malformedStanza(reason): return "an X25519 stanza is malformed: \(reason)"
        case let .malformedKey(what, reason): return "the \(what) is malformed: \(reason)"
        case .noMatchingIdentity: return "no recipient stanza of the age header is for this identity"
        case .lowOrderShare: return "an X25519 stanza has a low-order share"
        case .headerMACMismatch: return "the age header MAC does not verify"
        case let .chunkAuthenticationFailed(chunk): return "payload chunk \(chunk) does not authenticate"
        case let .truncatedPayload(chunks): return "the payload ends after \(chunks) chunks, before its final chunk"
        case let .trailingData(chunk): return "data follows the final payload chunk \(chunk)"
        case let .emptyFinalChunk(chunk): return "the final payload chunk \(chunk) is empty"
        case let .crypto(operation): return "cryptography failed: \(operation)"
        }
    }
}

extension AgeError {
    /// The primitives report through `FormatError.crypto`; age's callers see one error type.
    static func wrapping<R>(_ body: () throws -> R) throws(AgeError) -> R {
        do { return try body() }
        catch let error as AgeError { throw error }
        catch let FormatError.crypto(operation) { throw .crypto(operation: operation) }
        catch { throw .crypto(operation: "\(error)") }
    }
}
