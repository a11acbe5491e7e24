import CorpusFormat
import Foundation

/// Installs the embedder models corpora need into `HOME/embedders/<id>/<digest>/` (docs/layout.md)
/// and removes the ones no installed corpus names any more.
///
/// A model arrives like a bundle: named by the signed catalog (id, digest, artifact hash and
/// size), downloaded with the same checks (`Downloader`), its signed `embedder.json` verified
/// against the remote's root key and its digest compared with the one the corpus names, every
/// file hashed while it is extracted into a staging folder beside the destination, then renamed
/// into place. One installed model serves every corpus that names its digest.
public struct EmbedderInstaller: Sendable {
    public let home: HomeLayout

    public init(home: HomeLayout) {
        self.home = home
    }

    /// True when the model `info` names needs nothing from the network: model-free, or installed.
    public func isAvailable(_ info: EmbedderInfo) -> Bool {
        guard let digest = info.modelDigest else { return true }
        guard EmbedderManifest.isValidID(info.id) else { return false }
        return (try? InstalledEmbedder.check(directory: home.embedderDirectory(id: info.id, digest: digest), id: info.id, digest: digest)) != nil
    }

    /// Makes sure the model a corpus names is installed, fetching it from the catalog when it is not.
    ///
    /// Returns the model's lock, which the caller holds until the corpus that needs the model is
    /// installed, so a concurrent `gc` cannot remove a model no corpus references *yet*; nil for
    /// model-free embedders.
    public func ensure(_ info: EmbedderInfo, for corpus: String, offered: [CatalogEmbedder], sources: [Source],
                       trustedKeys: [PublicKey], downloader: Downloader,
                       progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws -> FileLock? {
        guard let digest = info.modelDigest else { return nil }
        // The digest was checked as the manifest decoded; the id names a folder too.
        guard EmbedderManifest.isValidID(info.id) else {
            throw SyncError.malformed(what: "embedder of \(corpus)", reason: "its id or digest is malformed")
        }
        let lock = try self.lock(id: info.id, wait: .upTo(seconds: 120))
        let folder = home.embedderDirectory(id: info.id, digest: digest)
        if FileIO.exists(folder) {
            if (try? InstalledEmbedder.check(directory: folder, id: info.id, digest: digest)) != nil { return lock }
            // A damaged model folder is replaced (readers that mapped it keep their copy).
            FileIO.remove(folder)
        }
        guard let offer = offered.first(where: { $0.id == info.id && $0.digest == digest }) else {
            throw SyncError.notFound(file: "embedder model \(info.id) \(digest.prefix(12))… that \(corpus) needs (the catalog does not offer it)")
        }
        guard offer.dimension == info.dimension else {
            throw SyncError.catalogMismatch(reason: "the catalog offers \(info.id) with \(offer.dimension) dimensions, \(corpus) needs \(info.dimension)")
        }
        // A refused model leaves no trace, not even the downloads folder the attempt created.
        let hadDownloads = FileIO.exists(home.downloads)
        do {
            // Models are shared by free and entitled corpora alike and are never gated: no token.
            let download = try await downloader.download(offer.artifact, from: sources, token: nil, progress: progress)
            defer { downloader.discard(download.digest) }
            try install(artifactPath: download.path, id: info.id, digest: digest, dimension: info.dimension, trustedKeys: trustedKeys, locked: lock)
            return lock
        } catch {
            if !hadDownloads { rmdir(home.downloads) }
            throw error
        }
    }

    /// Reinstalls the model an installed corpus names when its folder is missing or damaged and
    /// the remote's catalog offers it; does nothing otherwise (model-free corpora, imported ones,
    /// models the catalog no longer offers: search then says what is missing).
    public func repair(_ have: InstalledCorpusRecord, remote: Remote?, keys: [PublicKey]?, offered: [CatalogEmbedder],
                       downloader: Downloader) async throws {
        guard let remote, let keys,
              let folder = home.currentVersionDirectory(remote: have.remote, id: have.id),
              let data = FileManager.default.contents(atPath: "\(folder)/\(BundleLayout.manifest)"),
              let info = (try? Manifest.decode(data))?.embedder, let digest = info.modelDigest, !isAvailable(info),
              offered.contains(where: { $0.id == info.id && $0.digest == digest }) else { return }
        let lock = try await ensure(info, for: have.qualifiedName, offered: offered, sources: remote.sources,
                                    trustedKeys: keys, downloader: downloader)
        withExtendedLifetime(lock) {}
    }

    /// Verifies an artifact file and extracts it as the model `id`/`digest`. The caller holds `locked`
    /// (from `lock(id:)`) or passes nil to have it taken here.
    public func install(artifactPath: String, id: String, digest: SHA256Digest, dimension: Int, trustedKeys: [PublicKey],
                        locked: FileLock? = nil) throws {
        let lock = try locked ?? self.lock(id: id, wait: .upTo(seconds: 120))
        defer { withExtendedLifetime(lock) {} }
        let folder = home.embedderDirectory(id: id, digest: digest)
        do {
            let reader = try EmbedderArtifactReader(path: artifactPath)
            let verified = try reader.manifest(trustedKeys: trustedKeys)
            guard verified.digest == digest, verified.manifest.id == id, verified.manifest.dimension == dimension else {
                throw SyncError.catalogMismatch(reason: "the embedder artifact holds \(verified.manifest.id) \(verified.digest.prefix(12))… (\(verified.manifest.dimension) dimensions), the catalog promised \(id) \(digest.prefix(12))… (\(dimension))")
            }
            guard !FileIO.exists(folder) else { return }
            try FileIO.createDirectory(home.embedders)
            try FileIO.createDirectory("\(home.embedders)/\(id)")
            try reader.extract(verified, to: folder)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    /// Removes every installed model that no corpus in `referenced` (id and digest) names, and
    /// leftovers of interrupted extractions. Skips a model whose lock is held (being installed).
    /// - Returns: the removed `id/digest` names and the bytes freed.
    public func gc(referenced: Set<String>) -> (removed: [String], bytesFreed: Int64) {
        let fm = FileManager.default
        var removed: [String] = []
        var freed: Int64 = 0
        for id in ((try? fm.contentsOfDirectory(atPath: home.embedders)) ?? []).sorted() where EmbedderManifest.isValidID(id) {
            guard let lock = try? self.lock(id: id, wait: .no) else { continue }
            defer { withExtendedLifetime(lock) {} }
            let dir = "\(home.embedders)/\(id)"
            for name in ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                let path = "\(dir)/\(name)"
                let isModel = SHA256Digest.isValid(name)
                // With the lock held nobody is extracting, so anything that is not a model is a leftover.
                guard !isModel || !referenced.contains("\(id)/\(name)") else { continue }
                freed += HomeLayout.folderSize(path)
                FileIO.remove(path)
                if isModel { removed.append("\(id)/\(name)") }
            }
            if ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).isEmpty { rmdir(dir) }
        }
        return (removed, freed)
    }

    /// `id/digest` of the model every installed corpus's current version names.
    public func referenced() -> Set<String> {
        Set(home.installed().compactMap { v -> String? in
            guard let e = v.manifest?.embedder, let digest = e.modelDigest else { return nil }
            return "\(e.id)/\(digest)"
        })
    }

    /// The lock of one embedder id (`locks/embedder-<id>.lock`).
    public func lock(id: String, wait: FileLock.Wait) throws -> FileLock {
        try HomeLocks(home: home).embedder(id: id, wait: wait)
    }
}
