import Foundation
import CorpusFormat
import CorpusSync

/// `corpusd mirror`: brings a local copy of an upstream published tree up to date, verifying
/// everything against a pinned root key, so that the folder can be served by `corpusd serve` or
/// nginx like the origin (docs/format.md "Published tree").
///
/// A run (holding an exclusive lock on the folder):
/// 1. fetches the upstream's pointer, signed catalog and the whole root key chain, and verifies
///    them (`MirrorUpstream`); refuses a chain that disagrees with the one the folder serves, a
///    catalog older than the newest the folder holds (rollback), the same version with other bytes,
///    and an expired catalog — all before anything is written;
/// 2. downloads every bundle and embedder artifact the catalog references that the folder does not
///    hold intact (size and SHA-256 of the existing file checked), with the client's `Downloader`:
///    resumable, capped at the signed size, hash-checked; then checks each one's manifest signature
///    against the newest root and that it is the corpus (or model) the catalog promised. Entitled
///    corpora are fetched only with a token, which goes to the upstream only (never across a
///    redirect to another host); embedder artifacts are public, as on the origin;
/// 3. when every download verified: moves the bundles into place, writes missing root keys,
///    `keys/root.pub`, the catalog parts and top document, the flat catalog and its signature when
///    the version has one, `index.html`, and the pointer `catalog.json` last, atomically; then
///    removes bundles no unexpired catalog references.
///
/// A refusal discards what this run downloaded and leaves the folder byte-identical. A network
/// failure keeps the resumable partials in `.mirror/` (hidden, never served) for the next run.
public struct MirrorUpdater: Sendable {
    /// Base URL of the upstream tree (the folder holding its `catalog.json`).
    public var upstream: String
    /// The mirror's folder (created if missing).
    public var directory: String
    /// The pinned root key: one of the upstream's root keys (usually version 1, or `keys/root.pub`).
    public var trustedKey: PublicKey
    /// Bearer token for entitled corpora; nil leaves them out.
    public var token: String?
    public var retry: RetryPolicy
    public var httpConfiguration: HTTPClientConfiguration
    /// The clock expiry is judged against.
    public var now: @Sendable () -> Date
    /// Storage origins the upstream may redirect a token-carrying download to (`Remote.storage`).
    public var storageOrigins: [String] = []

    public init(upstream: String, directory: String, trustedKey: PublicKey, token: String? = nil,
                retry: RetryPolicy = RetryPolicy(), httpConfiguration: HTTPClientConfiguration = HTTPClientConfiguration(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.upstream = upstream
        self.directory = directory
        self.trustedKey = trustedKey
        self.token = token
        self.retry = retry
        self.httpConfiguration = httpConfiguration
        self.now = now
    }

    public func run(progress: @escaping @Sendable (MirrorProgress) -> Void = { _ in }) async throws -> MirrorSummary {
        guard let scheme = URLComponents(string: upstream)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw SyncError.malformed(what: "upstream URL", reason: "\(upstream) is not an http or https URL")
        }
        let dir = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let createdFolder = !FileIO.exists(dir)
        do { try FileIO.createDirectory(dir) } catch let e as FormatError { throw SyncError.from(e, file: dir) }
        do {
            // On the folder itself, so a refused run leaves the tree exactly as it was.
            let lock: FileLock
            do { lock = try FileLock(directory: dir) } catch { throw SyncError(error) }
            defer { lock.release() }
            return try await update(MirrorDirectory(root: dir), progress: progress)
        } catch {
            // A new mirror that failed before holding anything leaves no empty folder behind.
            if createdFolder, ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? ["?"]).isEmpty { FileIO.remove(dir) }
            throw error
        }
    }

    private func update(_ mirror: MirrorDirectory, progress: @escaping @Sendable (MirrorProgress) -> Void) async throws -> MirrorSummary {
        let client: HTTPClient
        do { client = try HTTPClient(configuration: httpConfiguration) } catch { throw SyncError.network(after: 0, last: .network(reason: "\(error)")) }
        let source = Source(baseURL: upstream, isOrigin: true, storageOrigins: storageOrigins)

        // 1. Verify the upstream's metadata, then judge it against what the mirror holds.
        let upstreamTree = MirrorUpstream(source: source, client: client, retry: retry, pinned: trustedKey)
        var up = try await upstreamTree.fetch(mirror: mirror)
        try judge(up, against: mirror)
        if up.parts == nil, let top = up.timestamp?.document.top {
            up.parts = try await MirrorCatalogParts.fetch(top, from: upstreamTree, root: up.root, catalogID: up.catalog.id, mirror: mirror)
        }
        let previous = mirror.pointerVersion()
        progress(.catalogVerified(id: up.catalog.id, version: up.catalog.version, previous: previous))

        // 2. Plan and download the bundles and models; nothing moves into the tree yet.
        let plan = try plan(up, mirror: mirror, progress: progress)
        let downloads: [(BundleRef, VerifiedDownload)]
        do {
            downloads = try await download(plan.fetches, from: source, into: mirror.work, client: client, progress: progress)
        } catch {
            // Only a network failure is worth resuming; after a refusal nothing of this run stays.
            mirror.cleanWork(everything: (error as? SyncError)?.category != .network)
            throw error
        }

        let log = try await MirrorLog.fetch(from: RemoteLog(client: client, source: source), catalogID: up.catalog.id, root: up.root, mirror: mirror)

        // 3. Everything verified: new immutable files first, the pointer last.
        try write(up, downloads: downloads, log: log, into: mirror)
        let removed = mirror.removeUnreferencedBundles(keep: up.catalog, now: now())
        for path in removed { progress(.removed(path: path)) }
        // The mirror's own tops decide, never what the upstream dropped: a client of the mirror
        // mid-refresh reads a top the mirror holds, whatever the upstream did since.
        let partsRemoved = PublishedTree(root: mirror.root).removeUnreferencedParts(current: up.catalog.version, now: now())
        mirror.cleanWork(everything: true)
        return MirrorSummary(catalog: up.catalog, previousVersion: previous, fetched: downloads.map { $0.0.path },
                             fetchedBytes: downloads.reduce(0) { $0 + $1.1.size }, present: plan.present,
                             skippedEntitled: plan.skipped, removed: removed, partsRemoved: partsRemoved)
    }

    /// Refuses an upstream whose root chain disagrees with the mirror's, whose catalog is another
    /// catalog, older than the newest the mirror holds, the same version with other bytes, or expired.
    private func judge(_ up: VerifiedUpstream, against mirror: MirrorDirectory) throws {
        let catalog = up.catalog
        try mirror.checkRoots(up.roots)
        if let held = try mirror.newestCatalog() {
            if catalog.id != held.catalog.id {
                throw SyncError.catalogMismatch(reason: "the upstream's catalog is \(catalog.id), this mirror serves \(held.catalog.id)")
            }
            // A floor set by a catalog whose key the newest root revoked is reset (fast-forward recovery).
            let sig = FileManager.default.contents(atPath: mirror.path(held.path + TreeLayout.signatureSuffix)) ?? Data()
            if catalog.version < held.catalog.version, CatalogFetcher.signed(sig, by: up.root, as: .catalog) {
                throw SyncError.rollback(from: held.catalog.version, to: catalog.version)
            }
        }
        // The same version with other bytes: the flat catalog's, or without one the top document's.
        let (file, offered) = up.catalogBytes.map { (TreeLayout.catalogPath(version: catalog.version), Optional($0)) }
            ?? (TreeLayout.topPath(version: catalog.version), up.parts?.top)
        if let existing = FileManager.default.contents(atPath: mirror.path(file)), existing != offered {
            throw SyncError.catalogConflict(version: catalog.version)
        }
        if let expiry = catalog.expiryDate, expiry <= now() { throw SyncError.expired(at: catalog.expires) }
        if let stamp = up.timestamp {
            if let expiry = stamp.document.expiryDate, expiry <= now() { throw SyncError.timestampExpired(at: stamp.document.expires) }
            let heldSignature = FileManager.default.contents(atPath: mirror.path(TreeLayout.timestamp + TreeLayout.signatureSuffix)) ?? Data()
            if let data = FileManager.default.contents(atPath: mirror.path(TreeLayout.timestamp)), let held = try? TimestampDocument.decode(data),
               stamp.document.version < held.version, CatalogFetcher.signed(heldSignature, by: up.root, as: .timestamp) {
                throw SyncError.timestampRollback(from: held.version, to: stamp.document.version)
            }
        }
    }

    /// One file to fetch: a bundle or a model artifact, with the check its manifest must pass.
    private struct Fetch {
        let label: String
        let ref: BundleRef
        let token: String?
        let check: (String) throws -> Void
    }

    private struct Plan {
        var fetches: [Fetch] = []
        var present: [String] = []
        var skipped: [String] = []
    }

    /// The bundles, then the models, the catalog references that the mirror does not hold intact
    /// (each content-addressed file once); entitled corpora only with a token.
    private func plan(_ up: VerifiedUpstream, mirror: MirrorDirectory, progress: (MirrorProgress) -> Void) throws -> Plan {
        var plan = Plan()
        var seen = Set<SHA256Digest>()
        func want(_ ref: BundleRef, label: String, token: String?, check: @escaping (String) throws -> Void) {
            guard seen.insert(ref.digest).inserted else { return }
            if mirror.holds(ref) {
                plan.present.append(ref.path)
                progress(.present(corpus: label, path: ref.path))
            } else {
                plan.fetches.append(Fetch(label: label, ref: ref, token: token, check: check))
            }
        }
        for entry in up.catalog.corpora {
            let ref = entry.bundle
            // Bundles are content-addressed: a catalog naming any other path cannot reach the tree's other files.
            guard ref.path == TreeLayout.bundlePath(sha256: ref.digest.hex) else {
                throw SyncError.malformed(what: "catalog", reason: "bundle of \(entry.id) is at \(ref.path.debugDescription), not bundles/<sha256>.corpus.zip")
            }
            if let payload = entry.payload {
                // Encrypted (docs/format.md "Encrypted entitled corpora"): the ciphertext is carried like a
                // free bundle, without a token, and never the plaintext; the signed catalog's hash and size
                // (checked by the download) are all a mirror can check, since it holds no key.
                want(payload, label: entry.id, token: nil) { _ in }
                for d in entry.deltas ?? [] { if let p = d.payload { want(p, label: "\(entry.id) delta from \(d.fromVersion)", token: nil) { _ in } } }
                continue
            }
            if entry.access == .entitled && token == nil {
                plan.skipped.append(entry.id)
                progress(.skippedEntitled(corpus: entry.id))
                continue
            }
            want(ref, label: entry.id, token: entry.access == .entitled ? token : nil) { try Self.checkManifest(of: $0, entry: entry, root: up.root) }
        }
        // Models the corpora name, content-addressed like bundles, so clients of the mirror need not
        // reach the origin for them; public, as on the origin.
        for e in up.catalog.embedders ?? [] {
            let ref = e.artifact
            guard ref.path == TreeLayout.embedderPath(sha256: ref.digest.hex) else {
                throw SyncError.malformed(what: "catalog", reason: "embedder \(e.id) is at \(ref.path.debugDescription), not embedders/<sha256>.embedder.zip")
            }
            want(ref, label: "embedder \(e.id)", token: nil) { try Self.checkEmbedder(of: $0, entry: e, root: up.root) }
        }
        return plan
    }

    /// Downloads each planned file (resumable, capped, hash-checked), then checks its manifest
    /// against the signed catalog; a file that fails is discarded and stops the run.
    private func download(_ fetches: [Fetch], from source: Source, into work: HomeLayout, client: HTTPClient,
                          progress: @escaping @Sendable (MirrorProgress) -> Void) async throws -> [(BundleRef, VerifiedDownload)] {
        let downloader = Downloader(home: work, client: client, retry: retry)
        var downloads: [(BundleRef, VerifiedDownload)] = []
        for fetch in fetches {
            let label = fetch.label, path = fetch.ref.path
            let done = try await downloader.download(fetch.ref, from: [source], token: fetch.token) {
                progress(.downloading(corpus: label, path: path, $0))
            }
            do {
                try fetch.check(done.path)
            } catch {
                downloader.discard(fetch.ref.digest)
                throw error
            }
            downloads.append((fetch.ref, done))
            progress(.downloaded(corpus: label, path: path, bytes: done.size))
        }
        return downloads
    }

    /// Moves the downloads into place, writes missing root keys, `keys/root.pub`, the catalog and
    /// its signature, `index.html`, and the pointer `catalog.json` last, atomically.
    private func write(_ up: VerifiedUpstream, downloads: [(BundleRef, VerifiedDownload)], log: MirrorLog.Staged?, into mirror: MirrorDirectory) throws {
        for (ref, done) in downloads { try mirror.place(download: done, as: ref) }
        for link in up.roots {
            let rel = TreeLayout.rootKeyPath(version: link.root.version)
            // Every signature file offered for a root, counted or not, as the upstream serves them.
            for (name, data) in link.signatures.sorted(by: { $0.key < $1.key }) { try mirror.writeIfMissing(data, to: "keys/\(name)") }
            try mirror.writeIfMissing(link.json, to: rel)
        }
        // `keys/root.pub` names a single-key tree's one key; a tree with roles has none.
        if up.root.roles.format == 1, let key = up.root.roles.keys(for: .root).first {
            try mirror.write(Data(key.fileText.utf8), to: "keys/root.pub")
        } else {
            FileIO.remove(mirror.path("keys/root.pub"))
        }
        try up.parts?.write(into: mirror)
        let catalogRel = TreeLayout.catalogPath(version: up.catalog.version)
        if let bytes = up.catalogBytes, let signature = up.catalogSignature {
            try mirror.writeIfMissing(signature, to: catalogRel + TreeLayout.signatureSuffix)
            try mirror.writeIfMissing(bytes, to: catalogRel)
        }
        if let log { try MirrorLog.write(log, into: mirror) }
        if let stamp = up.timestamp {
            try mirror.write(stamp.signature, to: TreeLayout.timestamp + TreeLayout.signatureSuffix)
            try mirror.write(stamp.bytes, to: TreeLayout.timestamp)
        }
        if let page = up.indexPage { try mirror.write(page, to: "index.html") }
        let pointer: Data
        // A version without a flat catalog is named by its top document, as the upstream names it.
        let named = up.catalogBytes == nil ? up.parts?.topPath : nil
        do { pointer = try CanonicalJSON.encode(CatalogPointer(id: up.catalog.id, version: up.catalog.version, path: named)) } catch let e as FormatError {
            throw SyncError.from(e, file: TreeLayout.pointer)
        }
        try mirror.write(pointer, to: TreeLayout.pointer)
    }

    /// The bundle's own manifest must be signed by the newest root and be the corpus the catalog promised.
    static func checkManifest(of path: String, entry: CatalogEntry, root: TrustedRoot) throws {
        let manifest: Manifest
        do {
            manifest = try BundleReader(path: path).manifest(trustedKeys: root.catalogKeys).manifest
        } catch let e as FormatError {
            throw SyncError.from(e, file: entry.bundle.path)
        }
        guard manifest.id == entry.id, manifest.version == entry.version, manifest.content == entry.content else {
            throw SyncError.catalogMismatch(reason: "\(entry.bundle.path) holds \(manifest.id) \(manifest.version), the catalog promised \(entry.id) \(entry.version)")
        }
    }

    /// The artifact's manifest must be signed by the newest root and be the model the catalog promised.
    static func checkEmbedder(of path: String, entry: CatalogEmbedder, root: TrustedRoot) throws {
        let verified: EmbedderArtifactReader.Verified
        do {
            verified = try EmbedderArtifactReader(path: path).manifest(trustedKeys: root.catalogKeys)
        } catch let e as FormatError {
            throw SyncError.from(e, file: entry.artifact.path)
        }
        guard verified.manifest.id == entry.id, verified.digest == entry.digest, verified.manifest.dimension == entry.dimension else {
            throw SyncError.catalogMismatch(reason: "\(entry.artifact.path) holds embedder \(verified.manifest.id) \(verified.digest.prefix(12))…, the catalog promised \(entry.id) \(entry.digest.prefix(12))…")
        }
    }
}
