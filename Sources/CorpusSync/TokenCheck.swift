import CorpusFormat
import Foundation

/// What `corpus login` can know about a token before storing it. The client holds no entitlement
/// key, so it cannot always verify a token; but it refuses what can never work, and verifies the
/// signature whenever the token names a key it has pinned.
public enum TokenCheck: Sendable, Equatable {
    /// Signed by the root key pinned (or rotated to) for `remote`.
    case verified(EntitlementClaims, remote: String)
    /// Well-formed, EdDSA, not expired; no pinned key is the one it names (`keyID`), so only the
    /// server can check it.
    case unchecked(EntitlementClaims, keyID: String?)
}

extension CorpusClient {
    /// Checks a token for `login`: throws `EntitlementTokenError` for one that is malformed, names
    /// another algorithm than EdDSA, expired longer ago than any server's leeway
    /// (`EntitlementVerifier.maxLeeway`), or whose signature does not verify against the pinned
    /// root key its `kid` names. Audience and not-before are left to the server: a token for
    /// another catalog, or not valid yet, may still be the right one to store.
    public func checkToken(_ compact: String, now: Date = Date()) throws -> TokenCheck {
        let parts = try JWS.parse(compact)
        guard case let .string(alg)? = parts.header["alg"] else { throw EntitlementTokenError.malformed(reason: "the header has no alg") }
        guard alg == JWS.algorithm else {
            throw EntitlementTokenError.algorithmNotAllowed(String(alg.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7f }.prefix(32).map(Character.init)))
        }
        let claims = try EntitlementToken.decodeUnverified(compact).claims
        if now.timeIntervalSince(claims.expiresAt) >= EntitlementVerifier.maxLeeway { throw EntitlementTokenError.expired(at: claims.expiresAt) }
        guard case let .string(kid)? = parts.header["kid"] else { return .unchecked(claims, keyID: nil) }
        let trust = TrustStore(home: home)
        for remote in try ClientConfig.load(home).remotes {
            let keys = [try? remote.pinnedKey()].compactMap { $0 } + ((try? trust.currentRoot(for: remote).roles.keys.values.map { $0 }) ?? [])
            guard let key = keys.first(where: { $0.keyID.description == kid }) else { continue }
            _ = try EntitlementVerifier(key: key, audience: nil, leeway: EntitlementVerifier.maxLeeway).signedClaims(compact)
            return .verified(claims, remote: remote.name)
        }
        return .unchecked(claims, keyID: kid)
    }
}
