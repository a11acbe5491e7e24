import Foundation
import Synchronization
import CorpusFormat

/// Decides whether a request for a bundle may proceed: the one place entitlement rules live,
/// shared by direct downloads and the `/_auth` endpoint nginx asks.
///
/// - Catalog, keys, index and bundles of free corpora are public.
/// - A bundle of an `entitled` corpus needs `Authorization: Bearer TOKEN` that verifies against
///   the pinned entitlement key (401 otherwise), names this catalog as audience and covers the
///   corpus by id or by its catalog tier (403 otherwise).
/// - Without a pinned entitlement key no entitled bundle is ever served (403): failing closed.
final class Gatekeeper: Sendable {
    enum Decision: Equatable, Sendable {
        /// Not a gated resource.
        case open
        /// A gated resource and a token that grants it.
        case granted
        /// A bundle no catalog lists.
        case unlisted
        /// 401: no usable token.
        case unauthenticated(EntitlementTokenError)
        /// 403: a usable token that does not grant this, or no key to check tokens with.
        case forbidden(String)
    }

    private let verifier: EntitlementVerifier?
    private let index: CatalogIndex
    /// Tokens whose signature already verified, by their text: Ed25519 verification costs far more
    /// than serving a small file. Lifetime and audience are still checked on every request.
    private let verified = Mutex([String: EntitlementClaims]())
    static let cacheLimit = 4096

    /// Folders whose files are served only when a catalog lists them (as a bundle, or as a delta
    /// of an entry, which the entry's access then gates).
    static let listedFolders: Set<String> = ["bundles", "deltas"]

    init(verifier: EntitlementVerifier?, index: CatalogIndex) {
        self.verifier = verifier
        self.index = index
    }

    /// The decision for a tree path (decoded segments) and the request's Authorization header.
    func decide(_ segments: [String], authorization: String?, now: Date = Date()) -> Decision {
        let path = segments.joined(separator: "/")
        var snapshot = index.current()
        // Before a bundle is refused as unlisted or served without a token, look at the tree
        // again: a catalog published since the last check may list it (a client that just read
        // the new catalog.json, served straight from disk, asks for it at once), or gate it (the
        // same bytes, turned entitled). Two `stat`s; the index is rebuilt only if the tree changed.
        let listedOnly = Self.listedFolders.contains(segments.first ?? "")
        if listedOnly, !(snapshot.owners(ofBundle: path) ?? []).contains(where: { $0.access == .entitled }) {
            snapshot = index.current(recheck: true)
        }
        // Any path a catalog names as a bundle is gated by that catalog, wherever it lives; other
        // files under bundles/ are unlisted; everything else is public.
        guard let owners = snapshot.owners(ofBundle: path) else {
            return listedOnly ? .unlisted : .open
        }
        let gated = owners.filter { $0.access == .entitled }
        if gated.isEmpty { return .open }
        guard let verifier else { return .forbidden("this server has no entitlement key, so it serves no entitled bundles") }
        guard let token = Self.bearer(authorization) else {
            return .unauthenticated(.malformed(reason: authorization == nil ? "no bearer token was sent" : "the Authorization header is not a Bearer token"))
        }
        let claims: EntitlementClaims
        do {
            claims = try cachedClaims(token, verifier)
            try verifier.check(claims, audience: snapshot.catalogID ?? "", now: now)
        } catch let e {
            return e.isInvalidToken ? .unauthenticated(e) : .forbidden(e.description)
        }
        guard gated.contains(where: { claims.covers(corpus: $0.corpus, tier: $0.tier) }) else {
            return .forbidden(EntitlementTokenError.notCovered(corpus: gated[0].corpus).description)
        }
        return .granted
    }

    /// Whether a catalog of the tree names this path, looking at the tree again when the index
    /// does not (a catalog published since the last check may): a gate-only server redirects
    /// nothing else.
    func lists(_ segments: [String]) -> Bool {
        let path = segments.joined(separator: "/")
        return index.current().lists(path) || index.current(recheck: true).lists(path)
    }

    private func cachedClaims(_ token: String, _ verifier: EntitlementVerifier) throws(EntitlementTokenError) -> EntitlementClaims {
        if let hit = verified.withLock({ $0[token] }) { return hit }
        let claims = try verifier.signedClaims(token)
        verified.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[token] = claims
        }
        return claims
    }

    /// The token of `Authorization: Bearer TOKEN` (scheme case-insensitive, RFC 6750 §2.1).
    /// Byte-level on purpose: this runs for every gated request, and Foundation's string
    /// trimming and searching cost more than serving the file.
    static func bearer(_ header: String?) -> String? {
        guard let header else { return nil }
        var bytes = Substring(header).utf8[...]
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        while let f = bytes.first, isSpace(f) { bytes = bytes.dropFirst() }
        while let l = bytes.last, isSpace(l) { bytes = bytes.dropLast() }
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count + 1,
              zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 }),
              isSpace(bytes[bytes.index(bytes.startIndex, offsetBy: scheme.count)]) else { return nil }
        var token = bytes.dropFirst(scheme.count)
        while let f = token.first, isSpace(f) { token = token.dropFirst() }
        guard !token.isEmpty, !token.contains(where: isSpace) else { return nil }
        return String(Substring(token))
    }
}
