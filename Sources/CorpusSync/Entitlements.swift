import CorpusFormat
import Foundation

/// What the client knows of the user's entitlements: the stored token, its claims (read without
/// verification: only the server holds the key), which offers they unlock, and the import limit.
extension CorpusClient {
    /// The token stored by `corpus login`, or nil.
    public static func storedToken(_ home: HomeLayout) -> String? {
        guard let data = FileManager.default.contents(atPath: home.token) else { return nil }
        let t = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    /// The stored token, refused as a damaged local file when it is not a token at all (it would
    /// otherwise be sent, refused by the server, and reported as a missing entitlement).
    public static func loadStoredToken(_ home: HomeLayout) throws -> String? {
        guard let token = storedToken(home) else { return nil }
        do {
            _ = try EntitlementToken.decodeUnverified(token)
        } catch {
            throw SyncError.localFileDamaged(path: home.token, reason: "it is not an entitlement token (\(error))")
        }
        return token
    }

    /// The token's claims, read without verification: the client uses them to show what is
    /// locked and to apply the import limit; the server verifies the token.
    public var claims: EntitlementClaims? {
        guard let token else { return nil }
        return try? EntitlementToken.decodeUnverified(token).claims
    }

    /// True unless the token's claims cover an entitled corpus (free ones are never locked). It
    /// follows the server's rule: where the catalog id is known, the token must name it in `aud`.
    public func isLocked(_ offer: OfferedCorpus, catalogID: String?) -> Bool {
        isLocked(id: offer.entry.id, access: offer.entry.access, tier: offer.entry.tier, catalogID: catalogID)
    }

    /// `isLocked` for a corpus known by its listing row's fields.
    public func isLocked(id: String, access: Access, tier: String?, catalogID: String?) -> Bool {
        guard access == .entitled else { return false }
        guard let claims else { return true }
        if let catalogID, !claims.audience.contains(catalogID) { return true }
        if claims.expiresAt < Date() { return true }
        return !claims.covers(corpus: id, tier: tier)
    }

    /// The import limit in force: the lower of the token's claim and the configured one.
    public func importLimit() throws -> Int? {
        importLimit(configured: try ClientConfig.load(home).importLimit)
    }

    func importLimit(configured: Int?) -> Int? {
        switch (claims?.importLimit, configured) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b): return b
        }
    }
}
