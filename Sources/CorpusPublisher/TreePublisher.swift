import Foundation
import CorpusFormat
import CorpusEngine

/// Steps of a publish, for the CLI to draw.
public enum PublishProgress: Sendable {
    case building(id: String)
    case built(id: String, documents: Int, passages: Int, skipped: [SkippedFile])
    case reused(id: String)
    /// A corpus asked for a model embedder whose files are absent, so it is built with `fallback`.
    case embedderFallback(corpus: String, embedder: String, fallback: String, reason: String)
    /// A model artifact was written to (or found in) `embedders/`.
    case embedderPublished(id: String, digest: String, path: String, reused: Bool)
    /// A delta from version `from` was made (or found in `deltas/`): `bytes` against the bundle's
    /// `bundleBytes`; `published` false when it was not smaller than half the bundle.
    case delta(id: String, from: String, bytes: Int64, bundleBytes: Int64, published: Bool, reused: Bool)
    /// A catalog field, or a field of a document just built, holds terminal control characters.
    case textWarning(TextWarning)
    /// What importing a corpus with `from` kept, changed or dropped (one line).
    case importNote(corpus: String, note: String)
}

/// What a publish did.
public struct PublishSummary: Sendable {
    public var catalog: Catalog
    /// Corpora whose bundle was (re)built or copied in this run, and those reused from the cache.
    public var built: [String]
    public var reused: [String]
    /// Bundle paths removed because no unexpired catalog references them any more.
    public var removed: [String]
    /// True when this publish created `keys/root-1.json`.
    public var createdRootKey: Bool
    /// Fields holding terminal control characters: the catalog's (every publish) and documents' (when built).
    public var warnings: [TextWarning]
    /// The freshness document this publish signed; nil when no timestamp key was at hand.
    public var timestamp: TimestampDocument?
    /// What the tree's keys cost or need (`KeyNotice`), each once.
    public var notices: [KeyNotice]
    /// Catalog parts this publish wrote (`parts/<sha256>.json.gz`); the others were already there.
    public var partsWritten: [String] = []
    /// Catalog parts removed because no retained top document names them
    /// (`PublishedTree.retainedTopVersions`).
    public var partsRemoved: [String] = []
    /// Files read to be hashed by the reuse checks (source files and cached bundles); a file
    /// whose stamp is the one recorded when it was last hashed is not read (`FileStamp`).
    public var hashed = 0
    /// True when the catalog's buckets were compared with the previous version's entries (the
    /// ones the history check read) rather than digested (`CatalogPartWriter.Written`).
    public var partsComparedWithPrevious = false
}

/// `corpusd publish`: turns a catalog folder into a static tree (docs/format.md "Published tree").
///
/// Order matters to readers of the tree while it is being written: bundles first (new names,
/// content-addressed, so nothing a client is reading changes), then keys, then the signed
/// catalog, then `index.html`, then the log's leaves and checkpoint (`TreeLogAppender`), then the
/// freshness document `timestamp.json`, and the pointer
/// `catalog.json` last, atomically. Every publish
/// writes a new catalog version, even when no bundle changed: that is also how the expiry
/// is renewed. Bundles no unexpired catalog references are removed afterwards.
///
/// Every refusal comes before the first write the tree's readers could see: what needs no build
/// (catalog file, paths, key, catalog id, lowered versions) before anything is built, what needs
/// the content (a version re-used with other content, model files) once every bundle and model
/// artifact is staged in `.staging/`.
public enum TreePublisher {
    public static let defaultExpiry: TimeInterval = 30 * 86400
    /// How many earlier versions still referenced get a delta to the new one (`--deltas K`).
    public static let defaultDeltaBases = 3
    /// How long a catalog may be valid: long enough that one failed cron run does not freeze every
    /// client, short enough that a frozen tree is noticed (and that clients can represent the date).
    public static let expiryRange: ClosedRange<TimeInterval> = 3600...(366 * 86400)

    /// One corpus ready to publish: reused from the tree, or built (or copied) into staging.
    struct Prepared {
        var entry: CatalogSource.Entry
        var cached: BuildCache.Entry
        /// The staged bundle to move into `bundles/`, nil when the tree already holds it.
        var staged: String?
        var reused: Bool
        /// What the build found in the corpus's documents (none when reused).
        var warnings: [TextWarning]
        /// The deltas the catalog lists for it (`DeltaPublisher`).
        var deltas: [DeltaPublisher.Staged] = []
        /// The bundle as an encrypted payload (`PayloadPublisher`), for an entitled corpus published with a key store.
        var payload: BundleRef?
    }

    /// `key` signs the catalog, bundles, deltas and model artifacts: a catalog key of the tree's
    /// newest root (in a single-key tree, its one key). The timestamp is signed by `timestampKey`,
    /// else by `key` when it holds the timestamp role too, else not at all (a notice says so).
    public static func publish(catalogDirectory: String, output: String, key: SecretKey, timestampKey: SecretKey? = nil,
                               expiresIn: TimeInterval = defaultExpiry, now: Date = Date(),
                               embedder: any Embedder = HashingEmbedder(), deltaBases: Int = defaultDeltaBases,
                               encryption: PayloadEncryption? = nil,
                               progress: (PublishProgress) -> Void = { _ in }) throws -> PublishSummary {
        guard expiryRange.contains(expiresIn) else { throw PublisherError.expiryOutOfRange(seconds: expiresIn, range: expiryRange) }
        let source = try CatalogSource.load(directory: catalogDirectory)
        let (chain, history) = try checkBeforeBuilding(source, catalogDirectory: catalogDirectory, tree: output, key: key, now: now)
        let roles = chain.roles(publishingWith: key)
        let timestampSigner = try timestampSigner(key: key, timestampKey: timestampKey, chain: chain, roles: roles)
        let timestampVersion = try TimestampWriter.previousVersion(tree: output) + 1
        let embedders = try PublishEmbedders(source: source, catalogDirectory: catalogDirectory, fallback: embedder)
        // Before anything is built: a key store inside the tree, or a bad gate URL, is refused.
        let payloads = try encryption.map { try PayloadPublisher($0, tree: output, staging: "\(output)/.staging") }

        for dir in ["", "/bundles", "/catalogs", "/keys"] { try FileIO.createDirectory(output + dir) }
        let lock = try TreeLock.take(tree: output)
        defer { lock.release() }
        let staging = "\(output)/.staging"
        FileIO.remove(staging)
        try FileIO.createDirectory(staging, mode: 0o700)
        defer { FileIO.remove(staging) }

        var cache = BuildCache.load(tree: output)
        let trustedKeys = chain.catalogKeys + [key.publicKey]
        let checks = ReuseCheck.run(source.corpora.map { e in
            ReuseCheck.Job(entry: e, located: CatalogSource.locate(e.source ?? e.bundle!, in: catalogDirectory),
                           embedderID: PublishEmbedders.cacheKey(embedders.embedder(for: e).embedder), cached: cache.corpora[e.cacheKey])
        }, keyID: key.keyID, tree: output)
        var prepared = try zip(source.corpora, checks).map { e, check in
            try prepare(e, check: check, catalogDirectory: catalogDirectory, embedders: embedders, cache: cache, key: key, tree: output,
                        staging: staging, trustedKeys: trustedKeys, progress: progress)
        }
        // The rules that need the content, before anything staged becomes part of the tree.
        for p in prepared {
            try history.checkContent(corpus: p.entry.id, version: p.entry.version, content: p.cached.manifest.content)
        }
        if deltaBases > 0 {
            try stageDeltas(&prepared, DeltaPublisher(tree: output, staging: staging, key: key, trustedKeys: trustedKeys, bases: deltaBases),
                            published: history.deltaBases, progress: progress)
        }
        let artifacts = try stageArtifacts(prepared.map(\.cached.manifest), embedders: embedders,
                                           catalogDirectory: catalogDirectory, key: key, tree: output, staging: staging, progress: progress)

        let stagedPayloads = try payloads?.encrypt(&prepared) ?? []

        // From here on the tree changes: content-addressed files first, the pointer last.
        try placeStaged(prepared, artifacts, tree: output)
        for p in stagedPayloads { try moveIntoPlace(p.staged, p.ref, tree: output) }
        for p in prepared { cache.corpora[p.entry.cacheKey] = p.cached }
        // One set of the source's keys: a scan of the source for each cached corpus was quadratic
        // (10,000 corpora: 10^8 entry copies, half of a republish).
        let listed = Set(source.corpora.map(\.cacheKey))
        cache.corpora = cache.corpora.filter { key, _ in listed.contains(key) }
        try cache.save(tree: output)

        if chain.newest == nil {
            try RootKeyChain.write(version: 1, newKey: key.publicKey, signer: key, created: now, tree: output)
        }
        var catalog = Catalog(id: source.id, title: source.title, version: history.latestVersion + 1, issued: now,
                              expires: now.addingTimeInterval(expiresIn), rootVersion: roles.version,
                              corpora: prepared.map(catalogEntry),
                              embedders: artifacts.isEmpty ? nil : artifacts.map(\.entry).sorted { ($0.id, $0.digest) < ($1.id, $1.digest) })
        catalog.gate = prepared.contains { $0.payload != nil } ? encryption?.gateURL : nil
        let catalogWarnings = TextWarning.catalogFields(catalog)
        for w in catalogWarnings { progress(.textWarning(w)) }
        let parts = try CatalogPartWriter.write(catalog, key: key, tree: output, previous: history.newestEntries)
        try CatalogEntriesSnapshot.write(version: parts.record.version, root: parts.record.root, entries: catalog.corpora, tree: output)
        let timestamp = try writeCatalog(catalog, key: key, trust: trustNote(roles), tree: output, flat: parts.flatCatalogFits) { pointer, flatBytes in
            _ = try TreeLogAppender.append(tree: output, catalog: catalog, catalogBytes: flatBytes, topBytes: parts.signedBytes, key: key)
            return try timestampSigner.map { try TimestampWriter.write(catalog: pointer, version: timestampVersion, key: $0, tree: output, now: now,
                                                              expiresIn: TimestampWriter.defaultExpiry) }
        }

        let (removed, partsRemoved) = CatalogPartWriter.removeUnreferenced(after: parts, keep: catalog, tree: output, now: now)
        return PublishSummary(catalog: catalog, built: prepared.filter { !$0.reused }.map(\.entry.id),
                              reused: prepared.filter(\.reused).map(\.entry.id), removed: removed,
                              createdRootKey: chain.newest == nil, warnings: catalogWarnings + prepared.flatMap(\.warnings),
                              timestamp: timestamp, notices: KeyNotice.notices(root: roles, timestampSigned: timestamp != nil, now: now),
                              partsWritten: parts.parts, partsRemoved: partsRemoved, hashed: checks.reduce(0) { $0 + $1.hashed },
                              partsComparedWithPrevious: parts.comparedWithPrevious)
    }

    /// The key that signs this publish's timestamp: `timestampKey` when given (it must be a
    /// timestamp key of the newest root), else `key` when it holds that role, else none.
    static func timestampSigner(key: SecretKey, timestampKey: SecretKey?, chain: RootKeyChain, roles: RootRoles) throws -> SecretKey? {
        if let timestampKey {
            // A new tree's root 1 is the publishing key's alone: a second key would hold no role.
            if chain.newest == nil, timestampKey.publicKey != key.publicKey {
                throw PublisherError.keyNotCurrentRoot(given: timestampKey.keyID.description, current: key.keyID.description, rootVersion: 1)
            }
            try chain.checkSigner(timestampKey, as: .timestamp)
            return timestampKey
        }
        return roles.holds(key.keyID, as: .timestamp) ? key : nil
    }

    /// What `index.html` tells a reader to trust: the single key's `root.pub`, or the newest root
    /// document of a tree with roles (which has no `root.pub`).
    static func trustNote(_ roles: RootRoles) -> IndexPage.Trust {
        roles.format == 1 ? .singleKey(keyID: roles.role(.root).keyIDs[0].description)
            : .rootDocument(path: TreeLayout.rootKeyPath(version: roles.version), version: roles.version)
    }

    /// Moves what was staged (bundles, their deltas, model artifacts) to its content-addressed place.
    static func placeStaged(_ prepared: [Prepared], _ artifacts: [PublishEmbedders.StagedArtifact], tree: String) throws {
        for p in prepared {
            if let staged = p.staged { try moveIntoPlace(staged, p.cached.bundle, tree: tree) }
            for d in p.deltas { if let staged = d.staged { try moveIntoPlace(staged, d.ref.file, tree: tree) } }
        }
        for a in artifacts { if let staged = a.staged { try moveIntoPlace(staged, a.entry.artifact, tree: tree) } }
    }

    /// Everything that can refuse without building, before the first write: the key is the tree's
    /// current root, the catalog id is the tree's, no corpus version goes down, every path exists.
    static func checkBeforeBuilding(_ source: CatalogSource, catalogDirectory: String, tree: String,
                                    key: SecretKey, now: Date) throws -> (RootKeyChain, TreeHistory) {
        let chain = try RootKeyChain.load(tree: tree)
        try chain.checkSigner(key, as: .catalog)
        let history = try TreeHistory.load(tree: tree, now: now)
        try history.checkCatalogID(source.id, tree: tree)
        for e in source.corpora {
            try history.checkVersion(corpus: e.id, channel: e.channel ?? ChannelRules.defaultChannel, version: e.version)
            let path = CatalogSource.locate(e.source ?? e.bundle!, in: catalogDirectory)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue == (e.source != nil && e.sourceIsFolder) else {
                throw PublisherError.sourceNotFound(path: path)
            }
        }
        return (chain, history)
    }

    /// Reuses a corpus's bundle from the tree when `check` found its inputs unchanged, else builds
    /// it (or copies and verifies a prebuilt one) into `staging`.
    static func prepare(_ e: CatalogSource.Entry, check: ReuseCheck.Outcome, catalogDirectory: String, embedders: PublishEmbedders, cache: BuildCache,
                        key: SecretKey, tree: String, staging: String, trustedKeys: [PublicKey],
                        progress: (PublishProgress) -> Void) throws -> Prepared {
        let located = CatalogSource.locate(e.source ?? e.bundle!, in: catalogDirectory)
        let (embedder, fallbackReason) = embedders.embedder(for: e)
        if let fallbackReason, let wanted = e.embedder {
            progress(.embedderFallback(corpus: e.id, embedder: wanted, fallback: embedder.id, reason: fallbackReason))
        }
        let inputs = try check.inputs.get()
        if check.reusable, var hit = cache.corpora[e.cacheKey] {
            progress(.reused(id: e.id))
            hit.sources = check.sources.isEmpty ? nil : check.sources
            hit.bundleStamp = check.bundleStamp
            return Prepared(entry: e, cached: hit, staged: nil, reused: true, warnings: [])
        }
        progress(.building(id: e.id))
        let staged = "\(staging)/\(e.cacheKey).corpus.zip"
        let manifest: Manifest
        var warnings: [TextWarning] = []
        var sourceBundled: Bool?
        if let format = e.importFormat {
            let options = ImportOptions(format: format, source: located, id: e.id, version: e.version, title: e.title,
                                        description: e.description, language: e.language, license: e.license)
            let summary = try CorpusBuilder.build(importing: options, key: key, output: staged, embedder: embedder)
            manifest = summary.manifest
            warnings = summary.warnings
            sourceBundled = summary.imported?.bundled
            for note in summary.imported?.notes ?? [] { progress(.importNote(corpus: e.id, note: note)) }
            progress(.built(id: e.id, documents: summary.documents, passages: summary.passages, skipped: []))
        } else if e.source != nil {
            var options = BuildOptions(source: located, id: e.id, version: e.version, title: e.title ?? e.id,
                                       description: e.description ?? "", language: e.language ?? "en", license: e.license ?? "")
            options.indexAtInstall = e.index != "bundle"
            let previous = "\(staging)/previous-\(e.cacheKey)"
            defer { FileIO.remove(previous) }
            // A channel's or rollout's build keeps the rows of its own last build, else of the corpus's stable one.
            let layout = try previousLayout(cache.corpora[e.cacheKey] ?? cache.corpora[e.id], tree: tree, into: previous, trustedKeys: trustedKeys)
            let summary = try CorpusBuilder.build(options, key: key, output: staged, embedder: embedder, layout: layout)
            manifest = summary.manifest
            warnings = summary.warnings
            progress(.built(id: e.id, documents: summary.documents, passages: summary.passages, skipped: summary.skipped))
        } else {
            // Copied first and verified as copied: what was checked is what is published, even if
            // the file named is swapped meanwhile.
            try copyFile(located, to: staged)
            manifest = try checkPrebuilt(staged, named: located, entry: e, key: key)
            progress(.built(id: e.id, documents: manifest.documents, passages: manifest.passages, skipped: []))
        }
        for w in warnings { progress(.textWarning(w)) }
        let ref = try BundleRef(hashing: staged) { TreeLayout.bundlePath(sha256: $0.hex) }
        return Prepared(entry: e, cached: BuildCache.Entry(inputs: inputs, bundle: ref, manifest: CachedManifest(manifest), sourceBundled: sourceBundled,
                                                           sources: check.sources.isEmpty ? nil : check.sources),
                        staged: staged, reused: false, warnings: warnings)
    }

    /// The deltas each prepared corpus lists (`DeltaPublisher`), found in `deltas/` or written to staging.
    static func stageDeltas(_ prepared: inout [Prepared], _ deltas: DeltaPublisher, published: [String: [DeltaPublisher.Published]],
                            progress: (PublishProgress) -> Void) throws {
        for i in prepared.indices {
            let p = prepared[i]
            let (staged, cached) = try deltas.deltas(to: p.cached.manifest, bundle: p.cached.bundle, at: p.staged ?? "\(deltas.tree)/\(p.cached.bundle.path)",
                                                     published: published[p.entry.id] ?? [], cached: p.cached.deltas ?? [], progress: progress)
            prepared[i].deltas = staged
            prepared[i].cached.deltas = cached.isEmpty ? nil : cached
        }
    }

    /// The model artifacts the prepared corpora were built with, each found in `embedders/` or
    /// written and verified in `staging`.
    static func stageArtifacts(_ manifests: [CachedManifest], embedders: PublishEmbedders, catalogDirectory: String, key: SecretKey,
                               tree: String, staging: String, progress: (PublishProgress) -> Void) throws -> [PublishEmbedders.StagedArtifact] {
        var out: [PublishEmbedders.StagedArtifact] = []
        var seen = Set<String>()
        for m in manifests {
            guard let digest = m.embedder.modelDigest, seen.insert(m.embedder.id + "@" + digest.hex).inserted else { continue }
            // A prebuilt bundle's model must be one this publish has.
            guard let model = embedders.models[m.embedder.id], model.digest == digest else {
                throw PublisherError.invalidCatalogSource(path: "\(catalogDirectory)/catalog.json",
                                                          reason: "corpus \(m.id) was built with \(m.embedder.id) \(digest.prefix(12))…, which no \"embedders\" entry provides")
            }
            let artifact = try PublishEmbedders.stageArtifact(model, key: key, tree: tree, staging: staging)
            progress(.embedderPublished(id: artifact.entry.id, digest: artifact.entry.digest.hex, path: artifact.entry.artifact.path,
                                        reused: artifact.staged == nil))
            out.append(artifact)
        }
        return out
    }

    static func catalogEntry(_ p: Prepared) -> CatalogEntry {
        let e = p.entry, m = p.cached.manifest
        var entry = CatalogEntry(id: e.id, version: e.version, title: e.title ?? m.title, description: e.description ?? m.description,
                                 language: e.language ?? m.language, license: e.license ?? m.license, access: e.access, tier: e.tier,
                                 bundled: e.bundled ?? p.cached.sourceBundled ?? false, bundle: p.cached.bundle, documents: m.documents, passages: m.passages,
                                 embedder: m.embedder, content: m.content)
        entry.deltas = p.deltas.isEmpty ? nil : p.deltas.map(\.ref)
        entry.channel = e.channel
        entry.rollout = e.rollout
        entry.payload = p.payload
        return entry
    }

    /// The rows of the version of the corpus the tree published last (its bundle, if still intact,
    /// extracted into `folder`, which the caller removes after the build), which the next build
    /// keeps with its vectors (`RowLayout`); nil for a corpus new to the tree.
    static func previousLayout(_ cached: BuildCache.Entry?, tree: String, into folder: String, trustedKeys: [PublicKey]) throws -> RowLayout? {
        guard let cached, bundleIntact(cached.bundle, tree: tree) else { return nil }
        let manifest = try BundleReader(path: "\(tree)/\(cached.bundle.path)").extract(to: folder, trustedKeys: trustedKeys)
        var layout = try RowLayout.read(packAt: "\(folder)/\(BundleLayout.pack)")
        layout.vectors = .init(path: "\(folder)/\(BundleLayout.vectors)", embedderID: manifest.embedder.id, modelDigest: manifest.embedder.modelDigest)
        return layout
    }

    /// Writes the signed catalog, `index.html`, the OPDS feeds, what `beforePointer` writes (the timestamp), then
    /// the pointer, each atomically. Without `flat` (a catalog too large for any client to read
    /// whole, `Catalog.maxFlatBytes`) no flat catalog is written and the pointer names the top
    /// document; `beforePointer` gets the flat catalog's bytes when there is one.
    static func writeCatalog<T>(_ catalog: Catalog, key: SecretKey, trust: IndexPage.Trust, tree: String, flat: Bool = true,
                                beforePointer: (CatalogPointer, Data?) throws -> T) throws -> T {
        var flatBytes: Data?
        let pointer: CatalogPointer
        if flat {
            let bytes = try catalog.canonicalBytes()
            let signature = try key.sign(bytes, trustedComment: catalog.trustedComment,
                                         untrustedComment: "catalog \(catalog.id) version \(catalog.version), key \(key.keyID)")
            let catalogPath = "\(tree)/\(TreeLayout.catalogPath(version: catalog.version))"
            try FileIO.writeAtomically(bytes, to: catalogPath)
            try FileIO.writeAtomically(Data(signature.fileText.utf8), to: catalogPath + TreeLayout.signatureSuffix)
            flatBytes = bytes
            pointer = CatalogPointer(id: catalog.id, version: catalog.version)
        } else {
            pointer = CatalogPointer(id: catalog.id, version: catalog.version, path: TreeLayout.topPath(version: catalog.version))
        }
        try FileIO.writeAtomically(Data(IndexPage.render(catalog, signer: key.keyID.description, trust: trust, catalogFile: pointer.path).utf8),
                                   to: "\(tree)/index.html")
        // The OPDS view for e-book readers, from the catalog just signed (docs/operations.md "Serving the OPDS feeds").
        try OPDSFeeds.write(catalog, tree: tree)
        let written = try beforePointer(pointer, flatBytes)
        try FileIO.writeAtomically(try CanonicalJSON.encode(pointer), to: "\(tree)/\(TreeLayout.pointer)")
        return written
    }

    static func bundleIntact(_ ref: BundleRef, tree: String) -> Bool { ref.matches(fileAt: "\(tree)/\(ref.path)") }

    /// A prebuilt bundle is published only if it verifies completely against the publishing key and
    /// is the corpus and version the catalog says. `named` is the path catalog.json gave, for messages.
    static func checkPrebuilt(_ path: String, named: String, entry: CatalogSource.Entry, key: SecretKey) throws -> Manifest {
        let manifest: Manifest
        do {
            manifest = try BundleReader(path: path).verifyAll(trustedKeys: [key.publicKey])
        } catch {
            throw PublisherError.invalidPrebuiltBundle(path: named, reason: "\(error)")
        }
        guard manifest.id == entry.id, manifest.version == entry.version else {
            throw PublisherError.invalidPrebuiltBundle(path: named, reason: "it holds \(manifest.id) \(manifest.version), the catalog says \(entry.id) \(entry.version)")
        }
        return manifest
    }

    /// Copies a file's bytes (a link named is read through, like any path the operator gives) into a new file.
    static func copyFile(_ source: String, to destination: String) throws {
        let reader = try FileHandleReader(path: source)
        let fd = SystemCall.retrying { open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw FormatError.io(operation: "create", path: destination, errno: errno) }
        defer { close(fd) }
        try reader.forEachChunk { try FileIO.writeAll(fd, $0, path: destination) }
    }

    /// Renames a staged file to its content-addressed place `ref.path` in the tree; identical
    /// content already there is kept as is.
    static func moveIntoPlace(_ staged: String, _ ref: BundleRef, tree: String) throws {
        if bundleIntact(ref, tree: tree) {
            FileIO.remove(staged)
            return
        }
        let dest = "\(tree)/\(ref.path)"
        let folder = (dest as NSString).deletingLastPathComponent
        try FileIO.createDirectory(folder)
        guard rename(staged, dest) == 0 else { throw FormatError.io(operation: "rename", path: dest, errno: errno) }
        FileIO.syncDirectory(folder)
    }
}
