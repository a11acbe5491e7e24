import CorpusFormat
import Foundation
import Synchronization

/// Fetches a remote's catalog, verifies it with `CatalogVerifier`, and only then persists it.
///
/// Sequence per source (origin first, then mirrors): conditional GET of `catalog.json`
/// (a 304 ends here: one request), GET of the catalog it points at and its `.minisig`, then the
/// root chain: `keys/root-<n+1>.json` for every n from the newest trusted root until a 404, each
/// verified by the root before it. A catalog signed by anything but the newest root is refused.
/// Nothing is written until every check passed; then the new chain links, the catalog and its
/// signature, and last the pointer's validators are written, each atomically.
public struct CatalogFetcher: Sendable {
    public let home: HomeLayout
    public let client: HTTPClient
    public var retry: RetryPolicy
    /// The clock expiry is checked against.
    public var now: @Sendable () -> Date
    /// Seconds one remote's refresh may take in all, every source and retry included; past it the
    /// refresh fails as a network error (`deadlineExceeded`), so callers fall back to the accepted
    /// catalog instead of waiting out attempts × stall windows. nil: no total bound.
    public var deadline: Double? = CatalogFetcher.defaultDeadline
    public static let defaultDeadline: Double = 20

    public static let maxPointerBytes: Int64 = 64 * 1024
    public static let maxCatalogBytes: Int64 = 32 * 1024 * 1024
    public static let maxSignatureBytes: Int64 = 16 * 1024
    public static let maxRootDocumentBytes: Int64 = 64 * 1024

    public init(home: HomeLayout, client: HTTPClient, retry: RetryPolicy = RetryPolicy(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.home = home
        self.client = client
        self.retry = retry
        self.now = now
    }

    public enum Update: Sendable {
        /// The server had nothing new (304, or the same signed bytes); the accepted catalog stands.
        case unchanged(Catalog)
        /// A newer catalog was verified and persisted.
        case updated(Catalog, previousVersion: Int?)

        public var catalog: Catalog {
            switch self {
            case let .unchanged(c), let .updated(c, _): return c
            }
        }
    }

    /// A verified catalog refresh whose results are not yet written to the home folder.
    ///
    /// Install and sync keep it pending until their work succeeded, so that a refused bundle
    /// leaves the home folder exactly as it was, catalog state included.
    public struct Pending: Sendable {
        public let remote: Remote
        public let update: Update
        /// The newest root key after following the chain: the key bundles must be signed by.
        public let root: TrustedRoot
        let links: [VerifiedRootDocument]
        let accepted: AcceptedCatalog?
        let fetch: FetchState?
        /// Set when this is the catalog accepted earlier, used because every source was unreachable.
        public var unrefreshed: UnrefreshedCatalog? = nil

        /// Writes the accepted root links, catalog and conditional-request state, each atomically.
        public func commit(home: HomeLayout) throws {
            try TrustStore(home: home).persist(links, for: remote)
            if let accepted { try CatalogState(home: home).persist(accepted, remote: remote.name) }
            if let fetch { try CatalogState(home: home).persist(fetch, remote: remote.name) }
        }
    }

    /// Brings `remote`'s accepted catalog up to date, or throws the refusal that stopped it.
    public func refresh(_ remote: Remote) async throws -> Update {
        let pending = try await fetch(remote)
        try pending.commit(home: home)
        return pending.update
    }

    /// Fetches and verifies `remote`'s catalog, persisting nothing, within `deadline`: origin,
    /// then mirrors, each retried as `retry` says (`SourceFailover`; the first verification
    /// refusal wins).
    public func fetch(_ remote: Remote) async throws -> Pending {
        try Identifier.validate(remote.name, what: "remote name")
        let attempts = AttemptCount()
        let failover = SourceFailover(retry: retry, onAttempt: { attempts.increment() })
        let fromSources = { @Sendable in
            try await failover.first(of: remote.sources, file: TreeLayout.pointer) { source in try await refresh(remote, from: source) }
        }
        guard let deadline else { return try await fromSources() }
        return try await withThrowingTaskGroup(of: Pending?.self) { group in
            group.addTask { try await fromSources() }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0, deadline) * 1e9))
                return nil
            }
            // The first to finish decides; the other is cancelled (a transfer in flight stops).
            defer { group.cancelAll() }
            if let pending = try await group.next() ?? nil { return pending }
            throw SyncError.network(after: max(1, attempts.value), last: .deadlineExceeded(seconds: deadline, what: "catalog refresh"))
        }
    }

    /// One source's answer, verified: the pointer (a 304 ends here), the catalog and its
    /// signature, the root chain forward from the newest trusted root, then the verdict.
    private func refresh(_ remote: Remote, from source: Source) async throws -> Pending {
        let accepted = try CatalogState(home: home).accepted(remote.name)
        let pointerURL = source.url(for: TreeLayout.pointer)
        let pointerResponse = try await fetchPointer(pointerURL, remote: remote, accepted: accepted)
        if pointerResponse.head.status == 304, let accepted {
            // Nothing new, but a frozen server must not keep an expired catalog alive.
            if let expiry = accepted.catalog.expiryDate, expiry <= now() { throw SyncError.expired(at: accepted.catalog.expires) }
            return Pending(remote: remote, update: .unchanged(accepted.catalog), root: try TrustStore(home: home).currentRoot(for: remote),
                           links: [], accepted: nil, fetch: nil)
        }
        let pointer = try Self.decodePointer(pointerResponse.body)

        // The catalog and its signature, as bytes; a missing signature is a refusal, not a pass.
        let catalogBytes = try await client.get(HTTPRequest(url: source.url(for: pointer.path), maxBodyBytes: Self.maxCatalogBytes)).body
        let signatureBytes = try await optional(source.url(for: pointer.path + TreeLayout.signatureSuffix), cap: Self.maxSignatureBytes)
        let (root, links) = try await followRootChain(of: remote, on: source)

        let verdict = try CatalogVerifier(now: now()).verify(bytes: catalogBytes, signature: signatureBytes, file: pointer.path,
                                                             root: root, expectedID: pointer.id, accepted: accepted)
        try Self.check(verdict.catalog, against: pointer)
        let update: Update
        var newlyAccepted: AcceptedCatalog?
        switch verdict {
        case let .unchanged(catalog):
            update = .unchanged(catalog)
        case let .accept(catalog):
            newlyAccepted = AcceptedCatalog(catalog: catalog, bytes: catalogBytes, signature: signatureBytes ?? Data())
            update = .updated(catalog, previousVersion: accepted?.catalog.version)
        }
        let head = pointerResponse.head
        let fetch = head.etag != nil || head.lastModified != nil
            ? FetchState(url: pointerURL, etag: head.etag, lastModified: head.lastModified) : nil
        return Pending(remote: remote, update: update, root: root, links: links, accepted: newlyAccepted, fetch: fetch)
    }

    /// GETs the pointer, conditionally when a catalog was accepted and validators were saved for
    /// this very URL (a 304 then means nothing changed).
    private func fetchPointer(_ url: String, remote: Remote, accepted: AcceptedCatalog?) async throws -> HTTPResponse {
        var headers: [String: String] = [:]
        if accepted != nil, let fetch = CatalogState(home: home).fetchState(remote.name), fetch.url == url {
            if let etag = fetch.etag { headers["If-None-Match"] = etag }
            if let lm = fetch.lastModified { headers["If-Modified-Since"] = lm }
        }
        return try await client.get(HTTPRequest(url: url, headers: headers, maxBodyBytes: Self.maxPointerBytes),
                                    allowNotModified: !headers.isEmpty)
    }

    /// The pointer is an unsigned hint: it must parse, name a valid catalog id and a safe tree path.
    public static func decodePointer(_ body: Data) throws -> CatalogPointer {
        let pointer: CatalogPointer
        do {
            pointer = try CanonicalJSON.decode(CatalogPointer.self, from: body, what: TreeLayout.pointer)
            try Identifier.validate(pointer.id, what: "catalog id")
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
        guard TreePath.isSafe(pointer.path) else {
            throw SyncError.malformed(what: TreeLayout.pointer, reason: "unsafe catalog path \(pointer.path.debugDescription)")
        }
        return pointer
    }

    /// The signed catalog must be the version the pointer named (a stale or crafted pointer is refused).
    public static func check(_ catalog: Catalog, against pointer: CatalogPointer) throws {
        guard catalog.version == pointer.version else {
            throw SyncError.catalogMismatch(reason: "\(pointer.path) holds version \(catalog.version), the pointer says \(pointer.version)")
        }
    }

    /// The root chain, from the newest trusted root forward until the tree has no newer one
    /// (`RootChainWalk`); returns the newest root and the links that lead to it.
    private func followRootChain(of remote: Remote, on source: Source) async throws -> (root: TrustedRoot, links: [VerifiedRootDocument]) {
        let trusted = try TrustStore(home: home).currentRoot(for: remote)
        let links = try await RootChainWalk.links(after: trusted) { path, cap in try await optional(source.url(for: path), cap: cap) }
        return (links.last?.root ?? trusted, links)
    }

    /// GETs a small file; nil when the server says 404 (a missing file is a state, not a failure).
    private func optional(_ url: String, cap: Int64) async throws -> Data? {
        do {
            return try await client.get(HTTPRequest(url: url, maxBodyBytes: cap)).body
        } catch TransportError.httpStatus(code: 404) {
            return nil
        }
    }
}

/// Attempts made so far by a refresh, read when its deadline passes.
final class AttemptCount: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
