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
    /// Corpus ids an install or sync asks for, beyond the installed ones: a tree with catalog parts
    /// is read only where these and the installed corpora's entries live (`refreshByTop`). nil:
    /// every entry (a listing of the whole catalog, `corpus catalog`), read once and afterwards
    /// only where parts changed.
    public var wanted: Set<String>? = nil
    /// `corpus catalog`: when the top document names a listing (docs/format.md "Listing parts"),
    /// read the listing parts this home lacks and, of the trie, only the paths to the installed
    /// and `wanted` entries; a top document without a listing is read whole as before.
    public var browsing = false

    public static let maxPointerBytes: Int64 = 64 * 1024
    public static let maxCatalogBytes: Int64 = Catalog.maxFlatBytes
    public static let maxSignatureBytes: Int64 = 16 * 1024
    public static let maxRootDocumentBytes: Int64 = 64 * 1024
    public static let maxTimestampBytes: Int64 = 16 * 1024
    /// How long to wait before asking again for a timestamp whose signature does not match it.
    static let timestampRetryPauses: [UInt64] = [200_000_000, 800_000_000]

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
        /// A newly accepted freshness document, nil when none or the same as before.
        var timestamp: AcceptedTimestamp? = nil
        /// Set when this is the catalog accepted earlier, used because every source was unreachable.
        public var unrefreshed: UnrefreshedCatalog? = nil
        /// True when the tree holds more root versions than one refresh walks; the next goes on.
        public var rootsPending = false
        /// The log checkpoint and inclusion proof the catalog was checked against (`TreeLogCheck`).
        var log: LogState.Accepted? = nil
        /// Catalog parts read from the network for an accepted top document, to keep in the cache.
        var parts: [PartRef: Data] = [:]
        /// Listing parts fetched for `corpus catalog`, staged until this refresh is committed.
        var listing: StagedListing? = nil

        /// Writes the accepted root links, freshness document, catalog and conditional-request
        /// state, each atomically.
        public func commit(home: HomeLayout) throws {
            try TrustStore(home: home).persist(links, for: remote)
            if let timestamp { try CatalogState(home: home).persist(timestamp, remote: remote.name) }
            // Parts before the top document that names them: a crash in between leaves spare parts.
            if !parts.isEmpty { try CatalogState(home: home).persist(parts: parts, remote: remote.name) }
            let listingCache = ListingCache(home: home, remote: remote.name)
            if let listing { try listing.commit(into: listingCache) }
            if let accepted { try CatalogState(home: home).persist(accepted, remote: remote.name) }
            let logState = LogState(home: home)
            if let log { try logState.persist(log, remote: remote.name) }
            // An install commits after its work: the corpora it installed get the proof of their catalog.
            if let kept = log?.inclusion ?? logState.acceptedInclusion(remote.name), kept.leaf.isCatalogVersion,
               kept.leaf.version == update.catalog.version {
                try logState.keepWithInstalled(kept, catalog: update.catalog, remote: remote.name)
            }
            if accepted?.catalog.parts != nil { CatalogState(home: home).pruneParts(remote: remote.name) }
            // Only a refresh that read the listing prunes it: a sync leaves the listing of an older
            // version in place, so the next `corpus catalog` fetches only the parts that changed.
            if listing != nil, let current = update.catalog.listing { listingCache.prune(keeping: current) }
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
        let logCheck = TreeLogCheck(home: home, client: client, now: now)
        let fromSources = { @Sendable in
            try await failover.first(of: remote.sources, file: TreeLayout.pointer) { source in
                try await logCheck.checked(try await refresh(remote, from: source), from: source)
            }
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

    /// One source's answer, verified. A remote whose trust requires a freshness document (a
    /// format-2 root, or one accepted before) starts at the root chain and `timestamp.json`; any
    /// other starts at the pointer, as trees without roles always did (`refreshByPointer`).
    ///
    /// The one write a refusal makes: root versions verified before it are kept (TUF §5.3.8), so
    /// that a chain longer than one refresh walks, or a later bad root, does not hold the client back.
    private func refresh(_ remote: Remote, from source: Source) async throws -> Pending {
        let state = CatalogState(home: home)
        let accepted = try state.accepted(remote.name)
        let stamp = try state.acceptedTimestamp(remote.name)
        let trusted = try TrustStore(home: home).currentRoot(for: remote)
        if trusted.roles.format < 2 && stamp == nil { return try await refreshByPointer(remote, from: source, accepted: accepted, trusted: trusted) }
        // A conditional GET of the timestamp first: a 304 ends the refresh in one request, as the
        // pointer's did; the accepted timestamp must still be unexpired (a server answering 304
        // forever cannot freeze the client past it). The root chain is walked whenever the
        // timestamp changed, which every publish and every `corpusd timestamp` run makes it do.
        let stampURL = source.url(for: TreeLayout.timestamp)
        let response = try await conditionalGet(stampURL, remote: remote, when: stamp != nil && accepted != nil && holdsWanted(accepted, remote: remote), cap: Self.maxTimestampBytes)
        if response?.head.status == 304, let stamp, let accepted {
            if let expiry = stamp.document.expiryDate, expiry <= now() { throw SyncError.timestampExpired(at: stamp.document.expires) }
            if let expiry = accepted.catalog.expiryDate, expiry <= now() { throw SyncError.expired(at: accepted.catalog.expires) }
            return Pending(remote: remote, update: .unchanged(accepted.catalog), root: trusted, links: [], accepted: nil, fetch: nil)
        }
        let walk = try await walkRoots(of: remote, from: trusted, on: source)
        return try await keepingRoots(walk, of: remote) {
            try await refreshByTimestamp(remote, from: source, accepted: accepted, stamp: stamp, trusted: trusted, walk: walk,
                                         served: response?.body, fetch: response.flatMap { Self.validators(of: $0, url: stampURL) })
        }
    }

    /// The refresh of a tree without a freshness document accepted so far: the pointer (a 304
    /// ends here), the catalog and its signature, the root chain, then the verdict. A tree that
    /// turns out to have a format-2 root or a `timestamp.json` continues as `refreshByTimestamp`.
    private func refreshByPointer(_ remote: Remote, from source: Source, accepted: AcceptedCatalog?, trusted: TrustedRoot) async throws -> Pending {
        let pointerURL = source.url(for: TreeLayout.pointer)
        let pointerResponse = try await fetchPointer(pointerURL, remote: remote, accepted: accepted)
        if pointerResponse.head.status == 304, let accepted {
            // Nothing new, but a frozen server must not keep an expired catalog alive.
            if let expiry = accepted.catalog.expiryDate, expiry <= now() { throw SyncError.expired(at: accepted.catalog.expires) }
            return Pending(remote: remote, update: .unchanged(accepted.catalog), root: trusted, links: [], accepted: nil, fetch: nil)
        }
        let pointer = try Self.decodePointer(pointerResponse.body)
        let walk = try await walkRoots(of: remote, from: trusted, on: source)
        return try await keepingRoots(walk, of: remote) {
            if let refusal = walk.refusal { throw refusal }
            let root = walk.links.last?.root ?? trusted
            let stampURL = source.url(for: TreeLayout.timestamp)
            let served = try await conditionalGet(stampURL, remote: remote, when: false, cap: Self.maxTimestampBytes)
            if root.roles.format >= 2 || served != nil {
                return try await refreshByTimestamp(remote, from: source, accepted: accepted, stamp: nil, trusted: trusted, walk: walk,
                                                    served: served?.body, fetch: served.flatMap { Self.validators(of: $0, url: stampURL) })
            }
            // The catalog and its signature, as bytes; a missing signature is a refusal, not a pass.
            let catalogBytes = try await client.get(HTTPRequest(url: source.url(for: pointer.path), maxBodyBytes: Self.maxCatalogBytes)).body
            let signatureBytes = try await optional(source.url(for: pointer.path + TreeLayout.signatureSuffix), cap: Self.maxSignatureBytes)
            let verdict = try CatalogVerifier(now: now()).verify(bytes: catalogBytes, signature: signatureBytes, file: pointer.path,
                                                                 root: root, expectedID: pointer.id, accepted: accepted)
            try Self.check(verdict.catalog, against: pointer)
            return pending(remote, verdict, bytes: catalogBytes, signature: signatureBytes, previous: accepted, root: root, walk: walk,
                           fetch: Self.validators(of: pointerResponse, url: pointerURL))
        }
    }

    /// The refresh under a freshness document (docs/format.md "Timestamp"): the newest root must
    /// not have expired; `timestamp.json` must be signed by a timestamp key, not older than the
    /// one accepted, and unexpired; the catalog it names must match its SHA-256 and size and pass
    /// `CatalogVerifier`. A rollback floor set by a document whose key the new root revoked is
    /// reset (TUF's fast-forward recovery), so the publisher's next catalog is accepted after a
    /// stolen online key signed higher versions.
    ///
    /// - Parameter served: `timestamp.json` as fetched, nil when the tree has none.
    /// - Parameter fetch: its validators, for the next refresh's conditional request.
    private func refreshByTimestamp(_ remote: Remote, from source: Source, accepted: AcceptedCatalog?, stamp: AcceptedTimestamp?,
                                    trusted: TrustedRoot, walk: RootChainWalk.Walk, served: Data?, fetch: FetchState?) async throws -> Pending {
        if let refusal = walk.refusal { throw refusal }
        let root = walk.links.last?.root ?? trusted
        if root.roles.hasExpired(at: now()), let expires = root.roles.expires {
            throw SyncError.rootExpired(version: root.version, at: Timestamp.format(expires))
        }
        let stampFloor = stamp.flatMap { Self.signed($0.signature, by: root, as: .timestamp) ? $0 : nil }
        let catalogFloor = accepted.flatMap { Self.signed($0.signature, by: root, as: .catalog) ? $0 : nil }

        let file = TreeLayout.timestamp
        guard var stampBytes = served else { throw SyncError.timestampMissing(file: file) }
        var stampSignature = try await signature(of: file, on: source)
        // The document and its signature are two files, replaced one after the other (the
        // signature first): a reader between the two sees a pair that does not match. Asked
        // again after a moment, a publish in progress has finished; a pair that still does not
        // match is refused.
        for pause in Self.timestampRetryPauses where (try? root.verify(stampSignature, of: stampBytes, file: file, role: .timestamp)) == nil {
            try await Task.sleep(nanoseconds: pause)
            guard let again = try await optional(source.url(for: file), cap: Self.maxTimestampBytes) else { throw SyncError.timestampMissing(file: file) }
            stampBytes = again
            stampSignature = try await signature(of: file, on: source)
        }
        let document: TimestampDocument
        do {
            try root.verify(stampSignature, of: stampBytes, file: file, role: .timestamp)
            document = try TimestampDocument.decode(stampBytes)
        } catch FormatError.signatureInvalid {
            throw SyncError.signatureInvalid(what: "\(file) (it does not match \(file)\(TreeLayout.signatureSuffix); a publish or an upload may be under way or cut short)")
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
        if let floor = stampFloor {
            if document.version < floor.document.version { throw SyncError.timestampRollback(from: floor.document.version, to: document.version) }
            if document.version == floor.document.version && stampBytes != floor.bytes {
                throw SyncError.catalogMismatch(reason: "timestamp version \(document.version) was re-signed with different content")
            }
        }
        if let expiry = document.expiryDate, expiry <= now() { throw SyncError.timestampExpired(at: document.expires) }
        let expectedID = accepted?.catalog.id ?? document.catalog.id
        guard document.catalog.id == expectedID else {
            throw SyncError.catalogMismatch(reason: "\(file) names catalog \(document.catalog.id), this remote's catalog is \(expectedID)")
        }
        let newStamp = stampBytes == stamp?.bytes ? nil : AcceptedTimestamp(document: document, bytes: stampBytes, signature: stampSignature)

        if let top = document.top {
            return try await refreshByTop(top, remote: remote, source: source, root: root, expectedID: expectedID, accepted: accepted,
                                          floor: catalogFloor, walk: walk, fetch: fetch, stamp: newStamp)
        }
        let named = document.catalog
        if let held = catalogFloor, held.catalog.version == named.version, SHA256Digest(bytes: SHA256.hash(held.bytes)) == named.digest {
            // Vouched for again: nothing to download, but the catalog's own expiry still holds.
            if let expiry = held.catalog.expiryDate, expiry <= now() { throw SyncError.expired(at: held.catalog.expires) }
            var p = Pending(remote: remote, update: .unchanged(held.catalog), root: root, links: walk.links, accepted: nil, fetch: fetch)
            p.timestamp = newStamp
            p.rootsPending = walk.truncated
            return p
        }
        let catalogBytes: Data
        do {
            catalogBytes = try await client.get(HTTPRequest(url: source.url(for: named.path), maxBodyBytes: min(named.size, Self.maxCatalogBytes))).body
        } catch TransportError.tooLarge {
            throw SyncError.sizeExceeded(file: named.path, limit: min(named.size, Self.maxCatalogBytes))
        }
        guard Int64(catalogBytes.count) == named.size else {
            throw SyncError.sizeMismatch(file: named.path, expected: named.size, actual: Int64(catalogBytes.count))
        }
        let digest = SHA256Digest(bytes: SHA256.hash(catalogBytes))
        guard digest == named.digest else { throw SyncError.hashMismatch(file: named.path, expected: named.digest.hex, actual: digest.hex) }
        let signatureBytes = try await optional(source.url(for: named.path + TreeLayout.signatureSuffix), cap: Self.maxSignatureBytes)
        let verdict = try CatalogVerifier(now: now()).verify(bytes: catalogBytes, signature: signatureBytes, file: named.path,
                                                             root: root, expectedID: expectedID, accepted: catalogFloor)
        guard verdict.catalog.version == named.version else {
            throw SyncError.catalogMismatch(reason: "\(named.path) holds version \(verdict.catalog.version), \(file) says \(named.version)")
        }
        var p = pending(remote, verdict, bytes: catalogBytes, signature: signatureBytes, previous: accepted, root: root, walk: walk, fetch: fetch)
        p.timestamp = newStamp
        return p
    }

    /// The pending result of a verdict.
    func pending(_ remote: Remote, _ verdict: CatalogVerifier.Verdict, bytes: Data, signature: Data?, previous: AcceptedCatalog?,
                         root: TrustedRoot, walk: RootChainWalk.Walk, fetch: FetchState?) -> Pending {
        let update: Update
        var newlyAccepted: AcceptedCatalog?
        switch verdict {
        case let .unchanged(catalog):
            update = .unchanged(catalog)
        case let .accept(catalog):
            newlyAccepted = AcceptedCatalog(catalog: catalog, bytes: bytes, signature: signature ?? Data())
            update = .updated(catalog, previousVersion: previous?.catalog.version)
        }
        var p = Pending(remote: remote, update: update, root: root, links: walk.links, accepted: newlyAccepted, fetch: fetch)
        p.rootsPending = walk.truncated
        return p
    }

    /// True when `signature` is by a key the root still holds in `role`: the document it signed
    /// still sets a rollback floor. A key the root revoked does not.
    public static func signed(_ signature: Data, by root: TrustedRoot, as role: RootRole) -> Bool {
        ThresholdSignatures.signer(of: signature).map { root.roles.holds($0, as: role) } ?? false
    }

    /// Runs the rest of a refresh after a root walk; if it is refused, the valid roots walked are
    /// kept before the refusal is thrown (the one change a refusal makes).
    private func keepingRoots(_ walk: RootChainWalk.Walk, of remote: Remote, _ body: () async throws -> Pending) async throws -> Pending {
        do {
            return try await body()
        } catch let e as SyncError where e.category == .verification && !walk.links.isEmpty {
            try TrustStore(home: home).persist(walk.links, for: remote)
            throw e
        }
    }

    /// A detached signature of a mutable file; missing or empty is a refusal.
    func signature(of file: String, on source: Source) async throws -> Data {
        guard let data = try await optional(source.url(for: file + TreeLayout.signatureSuffix), cap: Self.maxSignatureBytes), !data.isEmpty else {
            throw SyncError.signatureMissing(file: file)
        }
        return data
    }

    /// GETs a small mutable file, conditionally when `condition` holds and validators were saved
    /// for this very URL (a 304 then means nothing changed); nil when the server says 404.
    private func conditionalGet(_ url: String, remote: Remote, when condition: Bool, cap: Int64) async throws -> HTTPResponse? {
        var headers: [String: String] = [:]
        if condition, let fetch = CatalogState(home: home).fetchState(remote.name), fetch.url == url {
            if let etag = fetch.etag { headers["If-None-Match"] = etag }
            if let lm = fetch.lastModified { headers["If-Modified-Since"] = lm }
        }
        do {
            return try await client.get(HTTPRequest(url: url, headers: headers, maxBodyBytes: cap), allowNotModified: !headers.isEmpty)
        } catch TransportError.httpStatus(code: 404) {
            return nil
        }
    }

    /// The validators of a response, to send with the next request for `url`; nil when it has none.
    static func validators(of response: HTTPResponse, url: String) -> FetchState? {
        let head = response.head
        return head.etag != nil || head.lastModified != nil ? FetchState(url: url, etag: head.etag, lastModified: head.lastModified) : nil
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

    /// The root chain from the newest trusted root forward, at most `RootChainWalk.perRefreshLimit`
    /// versions, stopping at the first refusal (returned with the valid links before it).
    private func walkRoots(of remote: Remote, from trusted: TrustedRoot, on source: Source) async throws -> RootChainWalk.Walk {
        try await RootChainWalk.walk(after: trusted) { path, cap in try await optional(source.url(for: path), cap: cap) }
    }

    /// GETs a small file; nil when the server says 404 (a missing file is a state, not a failure).
    func optional(_ url: String, cap: Int64) async throws -> Data? {
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
