import Foundation

/// Why an entitlement token was refused. One case per reason so that a server can answer 401
/// (the token itself is no good) or 403 (a good token that does not cover the request), and a
/// client can say exactly what to do. No case ever carries the token text or any part of it.
public enum EntitlementTokenError: Error, Equatable, Sendable {
    /// Not three base64url parts, not JSON, missing or ill-typed claims.
    case malformed(reason: String)
    /// The header names an algorithm other than EdDSA (`none`, `HS256`, `RS256`, …).
    case algorithmNotAllowed(String)
    /// The header's `kid` is missing (nil) or names a key other than the pinned one.
    case unknownKey(keyID: String?)
    /// The Ed25519 signature does not verify against the pinned key.
    case signatureInvalid
    /// `exp` is in the past, beyond the allowed clock-skew leeway.
    case expired(at: Date)
    /// `nbf` (or `iat`) is in the future, beyond the allowed clock-skew leeway.
    case notYetValid(at: Date)
    /// The token's `aud` is not the catalog it is presented to, or (`actual` empty) names none.
    case wrongAudience(expected: String, actual: [String])
    /// A valid token that covers neither this corpus nor its tier.
    case notCovered(corpus: String)

    /// True when the token itself is unusable (HTTP 401); false when it is valid but does not
    /// grant this request (HTTP 403).
    public var isInvalidToken: Bool {
        switch self {
        case .wrongAudience, .notCovered: return false
        default: return true
        }
    }

    /// A short machine-readable code (`invalid_token`, `insufficient_scope` in RFC 6750 terms
    /// are derived from `isInvalidToken`).
    public var code: String {
        switch self {
        case .malformed: return "malformed"
        case .algorithmNotAllowed: return "algorithm-not-allowed"
        case .unknownKey: return "unknown-key"
        case .signatureInvalid: return "signature-invalid"
        case .expired: return "expired"
        case .notYetValid: return "not-yet-valid"
        case .wrongAudience: return "wrong-audience"
        case .notCovered: return "not-covered"
        }
    }
}

extension EntitlementTokenError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .malformed(reason): return "the entitlement token is malformed: \(reason)"
        case let .algorithmNotAllowed(alg): return "the entitlement token uses algorithm \(alg.debugDescription); only EdDSA is accepted"
        case let .unknownKey(kid?): return "the entitlement token was signed by key \(kid.debugDescription), not the pinned entitlement key"
        case .unknownKey(nil): return "the entitlement token names no signing key (kid)"
        case .signatureInvalid: return "the entitlement token's signature does not verify"
        case let .expired(at): return "the entitlement token expired at \(Timestamp.format(at))"
        case let .notYetValid(at): return "the entitlement token is not valid before \(Timestamp.format(at))"
        case let .wrongAudience(expected, actual) where actual.isEmpty:
            return "the entitlement token names no audience (aud); this server accepts only tokens for catalog \(expected.debugDescription)"
        case let .wrongAudience(expected, actual):
            return "the entitlement token is for \(actual.map(\.debugDescription).joined(separator: ", ")), not catalog \(expected.debugDescription)"
        case let .notCovered(corpus): return "the entitlement token does not cover corpus \(corpus)"
        }
    }
    public var errorDescription: String? { description }
}
