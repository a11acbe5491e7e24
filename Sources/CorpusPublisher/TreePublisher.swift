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
}

/// `corpusd publish`: turns a catalog folder into a static tree (docs/format.md "Published tree").
///
/// Order matters to readers of the tree while it is being written: bundles first (new names,
/// content-addressed, so nothing a client is reading changes), then keys, then the signed
/// catalog, then `index.html`, and the pointer `catalog.json` last, atomically. Every publish
/// writes a new catalog version, even when no bundle changed: that is also how the expiry
/// is renewed. Bundles no unexpired catalog references are removed afterwards.
public enum TreePublisher {
    public static let defaultExpiry: TimeInterval = 30 * 86400

    public static func publish(catalogDirectory: String, output: String, key: SecretKey,
                               expiresIn: TimeInterval = defaultExpiry, now: Date = Date(),
                               embedder: any Embedder = HashingEmbedder(),
                               progress: (PublishProgress) -> Void = { _ in }) throws -> PublishSummary {
        // Everything that can refuse is checked before the first write.
        let source = try CatalogSource.load(directory: catalogDirectory)
        let chain = try RootKeyChain.load(tree: output)
        try chain.checkSigner(key)
        let version = try latestCatalogVersion(tree: output) + 1
        for e in source.corpora {
            let path = "\(catalogDirectory)/\(e.source ?? e.bundle!)"
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue == (e.source != nil) else {
                throw PublisherError.sourceNotFound(path: path)
            }
        }

        let embedders = try PublishEmbedders(source: source, catalogDirectory: catalogDirectory, fallback: embedder)

        for dir in ["", "/bundles", "/catalogs", "/keys"] { try FileIO.createDirectory(output + dir) }
        let lock = try TreeLock(tree: output)
        defer { lock.release() }
        let staging = "\(output)/.staging"
        FileIO.remove(staging)
        try FileIO.createDirectory(staging, mode: 0o700)
        defer { FileIO.remove(staging) }

        var cache = BuildCache.load(tree: output)
        var entries: [CatalogEntry] = []
        var built: [String] = [], reused: [String] = []
        var usedModels: [String: CatalogEmbedder] = [:]
        for e in source.corpora {
            let located = "\(catalogDirectory)/\(e.source ?? e.bundle!)"
            let (embedder, fallbackReason) = embedders.embedder(for: e)
            if let fallbackReason, let wanted = e.embedder {
                progress(.embedderFallback(corpus: e.id, embedder: wanted, fallback: embedder.id, reason: fallbackReason))
            }
            let inputs: String
            if e.source != nil {
                inputs = try BuildCache.inputs(of: e, sourceFolder: located, embedderID: PublishEmbedders.cacheKey(embedder), keyID: key.keyID)
            } else {
                inputs = BuildCache.inputs(ofPrebuilt: e, sha256: Hex.encode(try SHA256.hash(fileAt: located).digest), keyID: key.keyID)
            }
            let result: BuildCache.Entry
            if let hit = cache.corpora[e.id], hit.inputs == inputs, bundleIntact(hit.bundle, tree: output) {
                result = hit
                reused.append(e.id)
                progress(.reused(id: e.id))
            } else {
                progress(.building(id: e.id))
                let staged = "\(staging)/\(e.id).corpus.zip"
                let manifest: Manifest
                if e.source != nil {
                    let options = BuildOptions(source: located, id: e.id, version: e.version, title: e.title ?? e.id,
                                               description: e.description ?? "", language: e.language ?? "en", license: e.license ?? "")
                    let summary = try CorpusBuilder.build(options, key: key, output: staged, embedder: embedder)
                    manifest = summary.manifest
                    progress(.built(id: e.id, documents: summary.documents, passages: summary.passages, skipped: summary.skipped))
                } else {
                    manifest = try checkPrebuilt(located, entry: e, key: key)
                    try FileManager.default.copyItem(atPath: located, toPath: staged)
                    progress(.built(id: e.id, documents: manifest.documents, passages: manifest.passages, skipped: []))
                }
                let ref = try moveIntoBundles(staged, tree: output)
                result = BuildCache.Entry(inputs: inputs, bundle: ref, manifest: manifest)
                cache.corpora[e.id] = result
                built.append(e.id)
            }
            let m = result.manifest
            // A corpus built with a model (here, or a prebuilt bundle whose model this publish has)
            // ships that model's artifact beside it.
            if let digest = m.embedder.digest, usedModels[m.embedder.id + "@" + digest] == nil {
                guard let model = embedders.models[m.embedder.id], model.digest == digest else {
                    throw PublisherError.invalidCatalogSource(path: "\(catalogDirectory)/catalog.json",
                                                              reason: "corpus \(e.id) was built with \(m.embedder.id) \(digest.prefix(12))…, which no \"embedders\" entry provides")
                }
                let (entry, wasThere) = try PublishEmbedders.publishArtifact(model, key: key, tree: output, staging: staging)
                usedModels[m.embedder.id + "@" + digest] = entry
                progress(.embedderPublished(id: entry.id, digest: entry.digest, path: entry.artifact.path, reused: wasThere))
            }
            entries.append(CatalogEntry(id: e.id, version: e.version, title: e.title ?? m.title,
                                        description: e.description ?? m.description, language: e.language ?? m.language,
                                        license: e.license ?? m.license, access: e.access, tier: e.tier, bundled: e.bundled ?? false,
                                        bundle: result.bundle, documents: m.documents, passages: m.passages,
                                        embedder: m.embedder, contentDigest: m.contentDigest))
        }
        cache.corpora = cache.corpora.filter { id, _ in source.corpora.contains { $0.id == id } }
        try cache.save(tree: output)

        var rootDoc = chain.current
        if rootDoc == nil {
            rootDoc = try RootKeyChain.write(version: 1, newKey: key.publicKey, signer: key, created: now, tree: output)
        }
        let catalog = Catalog(id: source.id, title: source.title, version: version, issued: now,
                              expires: now.addingTimeInterval(expiresIn), rootVersion: rootDoc!.version, corpora: entries,
                              embedders: usedModels.isEmpty ? nil : usedModels.values.sorted { ($0.id, $0.digest) < ($1.id, $1.digest) })
        let bytes = try catalog.canonicalBytes()
        let signature = try key.sign(bytes, trustedComment: catalog.trustedComment,
                                     untrustedComment: "catalog \(catalog.id) version \(version), root key \(key.keyID)")
        let catalogPath = "\(output)/\(TreeLayout.catalogPath(version: version))"
        try FileIO.writeAtomically(bytes, to: catalogPath)
        try FileIO.writeAtomically(Data(signature.fileText.utf8), to: catalogPath + TreeLayout.signatureSuffix)
        try FileIO.writeAtomically(Data(IndexPage.render(catalog, rootKeyID: key.keyID.description).utf8), to: "\(output)/index.html")
        let pointer = try CanonicalJSON.encode(CatalogPointer(id: catalog.id, version: version))
        try FileIO.writeAtomically(pointer, to: "\(output)/\(TreeLayout.pointer)")

        let removed = removeUnreferencedBundles(tree: output, keep: catalog, now: now)
        return PublishSummary(catalog: catalog, built: built, reused: reused, removed: removed, createdRootKey: chain.current == nil)
    }

    /// The highest catalog version in the tree: the pointer's, or a higher `catalogs/<N>.json` left by
    /// a publish that stopped before replacing the pointer (never reuse a number a client may have seen).
    static func latestCatalogVersion(tree: String) throws -> Int {
        var latest = 0
        let pointerPath = "\(tree)/\(TreeLayout.pointer)"
        if let data = FileManager.default.contents(atPath: pointerPath) {
            guard let pointer = try? JSONDecoder().decode(CatalogPointer.self, from: data), pointer.version >= 1 else {
                throw PublisherError.invalidTree(path: TreeLayout.pointer, reason: "not a catalog pointer")
            }
            latest = pointer.version
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "\(tree)/catalogs")) ?? [] {
            if name.hasSuffix(".json"), let n = Int(name.dropLast(5)) { latest = max(latest, n) }
        }
        return latest
    }

    static func bundleIntact(_ ref: BundleRef, tree: String) -> Bool {
        let path = "\(tree)/\(ref.path)"
        guard FileIO.fileSize(path) == ref.size, let hash = try? SHA256.hash(fileAt: path) else { return false }
        return Hex.encode(hash.digest) == ref.sha256
    }

    /// A prebuilt bundle is published only if it verifies completely against the publishing key and
    /// is the corpus and version the catalog says.
    static func checkPrebuilt(_ path: String, entry: CatalogSource.Entry, key: SecretKey) throws -> Manifest {
        let manifest: Manifest
        do {
            manifest = try BundleReader(path: path).verifyAll(trustedKeys: [key.publicKey])
        } catch {
            throw PublisherError.invalidPrebuiltBundle(path: path, reason: "\(error)")
        }
        guard manifest.id == entry.id, manifest.version == entry.version else {
            throw PublisherError.invalidPrebuiltBundle(path: path, reason: "it holds \(manifest.id) \(manifest.version), the catalog says \(entry.id) \(entry.version)")
        }
        return manifest
    }

    /// Renames a staged bundle to `bundles/<sha256>.corpus.zip`; identical content already there is kept as is.
    static func moveIntoBundles(_ staged: String, tree: String) throws -> BundleRef {
        let (digest, size) = try SHA256.hash(fileAt: staged)
        let sha = Hex.encode(digest)
        let rel = TreeLayout.bundlePath(sha256: sha)
        let dest = "\(tree)/\(rel)"
        if bundleIntact(BundleRef(path: rel, sha256: sha, size: size), tree: tree) {
            FileIO.remove(staged)
        } else {
            guard rename(staged, dest) == 0 else { throw FormatError.io(operation: "rename", path: dest, errno: errno) }
            FileIO.syncDirectory("\(tree)/bundles")
        }
        return BundleRef(path: rel, sha256: sha, size: size)
    }

    /// Removes bundles and embedder artifacts that neither `keep` nor any other unexpired catalog
    /// of the tree references.
    static func removeUnreferencedBundles(tree: String, keep: Catalog, now: Date) -> [String] {
        func files(_ c: Catalog) -> [String] { c.corpora.map(\.bundle.path) + (c.embedders ?? []).map(\.artifact.path) }
        var referenced = Set(files(keep))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "\(tree)/catalogs")) ?? [] where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: "\(tree)/catalogs/\(name)"),
                  let c = try? Catalog.decode(data) else { continue }
            if let expiry = c.expiryDate, expiry > now { referenced.formUnion(files(c)) }
        }
        var removed: [String] = []
        for (folder, suffix) in [("bundles", ".corpus.zip"), ("embedders", ".embedder.zip")] {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: "\(tree)/\(folder)")) ?? []).sorted()
            where name.hasSuffix(suffix) {
                let rel = "\(folder)/\(name)"
                if !referenced.contains(rel) {
                    FileIO.remove("\(tree)/\(rel)")
                    removed.append(rel)
                }
            }
        }
        return removed
    }
}
