import Foundation

/// What an entitlement token grants (RFC 7519 registered claims plus CorpusSync's own).
///
/// Wire names: `iss`, `sub`, `aud` (the catalog id; a string, or an array when there are
/// several), `iat`, `nbf`, `exp` (NumericDate, whole seconds), `jti`, `corpora` (corpus ids),
/// `tiers` (tier names), `import_limit` (optional, a non-negative integer).
public struct EntitlementClaims: Equatable, Sendable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var issuedAt: Date?
    public var notBefore: Date?
    public var expiresAt: Date
    public var tokenID: String?
    public var corpora: [String]
    public var tiers: [String]
    /// How many non-bundled corpora the holder may install; nil means no limit.
    public var importLimit: Int?

    public init(issuer: String, subject: String, audience: [String], issuedAt: Date?, notBefore: Date?, expiresAt: Date,
                tokenID: String?, corpora: [String], tiers: [String], importLimit: Int?) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.issuedAt = issuedAt
        self.notBefore = notBefore
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.corpora = corpora
        self.tiers = tiers
        self.importLimit = importLimit
    }

    /// True when the token names the corpus itself, or the tier the catalog puts it in.
    public func covers(corpus: String, tier: String?) -> Bool {
        if corpora.contains(corpus) { return true }
        if let tier, tiers.contains(tier) { return true }
        return false
    }

    /// The payload as canonical JSON (integers only, sorted keys).
    func payload() -> [UInt8] {
        var o: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(subject),
            "exp": .integer(Int64(expiresAt.timeIntervalSince1970.rounded(.down))),
        ]
        if audience.count == 1 { o["aud"] = .string(audience[0]) } else if !audience.isEmpty { o["aud"] = .array(audience.map { .string($0) }) }
        if let issuedAt { o["iat"] = .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down))) }
        if let notBefore { o["nbf"] = .integer(Int64(notBefore.timeIntervalSince1970.rounded(.down))) }
        if let tokenID { o["jti"] = .string(tokenID) }
        if !corpora.isEmpty { o["corpora"] = .array(corpora.map { .string($0) }) }
        if !tiers.isEmpty { o["tiers"] = .array(tiers.map { .string($0) }) }
        if let importLimit { o["import_limit"] = .integer(Int64(importLimit)) }
        return CanonicalJSON.serialize(.object(o))
    }

    /// Decodes a payload; every claim must have its documented type, `exp` is required.
    static func decode(payload: [UInt8]) throws(EntitlementTokenError) -> EntitlementClaims {
        // RFC 7519 §4: claim names must be unique (two `exp`s: which one would another reader use?).
        if let refusal = CanonicalJSON.uniquenessRefusal(Data(payload)) { throw .malformed(reason: "claims: " + refusal) }
        let wire: WireClaims
        do {
            wire = try JSONDecoder().decode(WireClaims.self, from: Data(payload))
        } catch {
            throw .malformed(reason: "claims: " + CanonicalJSON.reason(error))
        }
        guard let exp = wire.exp else { throw .malformed(reason: "claims: no exp; tokens must expire") }
        if let limit = wire.import_limit, limit < 0 { throw .malformed(reason: "claims: import_limit is negative") }
        func date(_ t: Double?) throws(EntitlementTokenError) -> Date? {
            guard let t else { return nil }
            guard t.isFinite, abs(t) < 1e11 else { throw .malformed(reason: "claims: a time is out of range") }
            return Date(timeIntervalSince1970: t.rounded(.down))
        }
        return EntitlementClaims(issuer: wire.iss ?? "", subject: wire.sub ?? "", audience: wire.aud?.values ?? [],
                                 issuedAt: try date(wire.iat), notBefore: try date(wire.nbf), expiresAt: try date(exp)!,
                                 tokenID: wire.jti, corpora: wire.corpora ?? [], tiers: wire.tiers ?? [],
                                 importLimit: wire.import_limit)
    }
}

/// The claims as they travel; NumericDates may be fractional in tokens from other issuers.
private struct WireClaims: Decodable {
    var iss: String?
    var sub: String?
    var aud: Audience?
    var iat: Double?
    var nbf: Double?
    var exp: Double?
    var jti: String?
    var corpora: [String]?
    var tiers: [String]?
    var import_limit: Int?

    /// RFC 7519 §4.1.3: one string or an array of strings.
    struct Audience: Decodable {
        var values: [String]
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let one = try? c.decode(String.self) { values = [one] } else { values = try c.decode([String].self) }
        }
    }
}

/// A signed entitlement token: a compact JWS whose payload is `EntitlementClaims`.
///
/// The token text is a bearer credential: it is deliberately absent from `description`,
/// `debugDescription` and reflection, so printing or logging a token never leaks it.
public struct EntitlementToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The compact serialization to send in `Authorization: Bearer …`.
    public let compact: String
    public let claims: EntitlementClaims

    /// Signs a new token with a minisign secret key; `jti` is 16 random bytes in hex.
    public static func issue(key: SecretKey, issuer: String, subject: String, audience: String?,
                             corpora: [String] = [], tiers: [String] = [], importLimit: Int? = nil,
                             lifetime: TimeInterval, now: Date = Date()) throws -> EntitlementToken {
        let start = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims = EntitlementClaims(issuer: issuer, subject: subject, audience: audience.map { [$0] } ?? [], issuedAt: start, notBefore: start,
                                       expiresAt: start.addingTimeInterval(lifetime.rounded(.down)),
                                       tokenID: Hex.encode(try Ed25519.randomSeed().prefix(16)),
                                       corpora: corpora, tiers: tiers, importLimit: importLimit)
        return EntitlementToken(compact: try JWS.sign(payload: claims.payload(), key: key), claims: claims)
    }

    /// Reads the claims WITHOUT checking the signature: for showing a user what their token says
    /// (e.g. its import limit). Never base an access decision on this; use `EntitlementVerifier`.
    public static func decodeUnverified(_ compact: String) throws(EntitlementTokenError) -> EntitlementToken {
        let parts = try JWS.parse(compact)
        return EntitlementToken(compact: compact, claims: try EntitlementClaims.decode(payload: parts.payload))
    }

    init(compact: String, claims: EntitlementClaims) {
        self.compact = compact
        self.claims = claims
    }

    public var description: String { "EntitlementToken(sub: \(claims.subject.debugDescription), token redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["claims": claims]) }
}

/// Checks tokens against one pinned public key: the only way a token grants anything.
public struct EntitlementVerifier: Sendable {
    /// The largest clock skew tolerated on `exp`, `nbf` and `iat` (RFC 7519 "a few minutes").
    public static let maxLeeway: TimeInterval = 300

    public let key: PublicKey
    /// When set, the token's `aud` must contain it (the catalog id); a token without `aud` is then
    /// refused. nil checks no audience: only for reading a token, never for granting access.
    public let audience: String?
    public let leeway: TimeInterval

    public init(key: PublicKey, audience: String?, leeway: TimeInterval = 60) {
        self.key = key
        self.audience = audience
        self.leeway = min(max(leeway, 0), Self.maxLeeway)
    }

    /// Verifies header, signature, lifetime and audience, in that order, and returns the claims.
    public func verify(_ compact: String, now: Date = Date()) throws(EntitlementTokenError) -> EntitlementClaims {
        let claims = try signedClaims(compact)
        try check(claims, audience: audience, now: now)
        return claims
    }

    /// Header and signature only: the claims a pinned key vouches for, not yet checked for time
    /// or audience. A server may cache these and run `check` on every use.
    public func signedClaims(_ compact: String) throws(EntitlementTokenError) -> EntitlementClaims {
        let parts = try JWS.parse(compact)
        try JWS.verify(parts, key: key)
        return try EntitlementClaims.decode(payload: parts.payload)
    }

    /// Lifetime, then audience when one is required. With leeway L a token is good while
    /// now < exp + L, and from nbf − L and iat − L on (RFC 7519 §4.1.4–4.1.6: `exp` is the first
    /// second it is no longer accepted, `nbf` the first second it is).
    public func check(_ claims: EntitlementClaims, audience: String?, now: Date = Date()) throws(EntitlementTokenError) {
        if now.timeIntervalSince(claims.expiresAt) >= leeway { throw .expired(at: claims.expiresAt) }
        if let nbf = claims.notBefore, nbf.timeIntervalSince(now) > leeway { throw .notYetValid(at: nbf) }
        if let iat = claims.issuedAt, iat.timeIntervalSince(now) > leeway { throw .notYetValid(at: iat) }
        // The audience is what keeps a token for one catalog from opening another served with the
        // same key (RFC 8725 §3.9), so a token that names none is refused wherever a catalog id is
        // known; `corpusd token issue` always writes one.
        if let audience, !claims.audience.contains(audience) {
            throw .wrongAudience(expected: audience, actual: claims.audience.prefix(4).map(JWS.printable))
        }
    }

    /// Verifies the token and checks that it covers `corpus` (by id or by its catalog tier).
    public func authorize(_ compact: String, corpus: String, tier: String?, now: Date = Date()) throws(EntitlementTokenError) -> EntitlementClaims {
        let claims = try verify(compact, now: now)
        guard claims.covers(corpus: corpus, tier: tier) else { throw .notCovered(corpus: corpus) }
        return claims
    }
}
