import CorpusFormat
import Foundation

/// Installing one corpus a catalog offers, under its corpus lock: the model it names, the
/// bundle's download (verified against the signed catalog), then the installer.
extension PlanExecutor {
    /// Downloads, verifies and installs one offered corpus; `repairing` reinstalls the version
    /// that is already current (its files were found damaged).
    func install(_ offer: OfferedCorpus, previous: String?, repairing: Bool) async -> CorpusClient.Outcome {
        let name = "\(offer.remote)/\(offer.entry.id)"
        let version = offer.entry.version.description
        var deltaError: SyncError?
        do {
            guard let remote = operation.config.remote(named: offer.remote), let keys = catalogs.catalogKeys[offer.remote] else {
                throw SyncError.notFound(file: "remote \(offer.remote)")
            }
            let token = try bearerToken(for: offer)
            // The corpus lock is held from before the download to the swap: a second
            // process installing the same corpus waits here, then finds it done.
            let lock = try HomeLocks(home: home).corpus(remote: offer.remote, id: offer.entry.id, wait: operation.settings.lockWait)
            defer { withExtendedLifetime(lock) {} }
            if !repairing, let dir = home.currentVersionDirectory(remote: offer.remote, id: offer.entry.id),
               InstallRecord.read(versionDirectory: dir)?.version == offer.entry.version {
                return .init(name: name, kind: .unchanged, version: version)
            }
            // The model the corpus names comes first, so the corpus is searchable the moment it appears.
            let modelLock = try await EmbedderInstaller(home: home).ensure(
                offer.entry.embedder, for: name, offered: catalogs.embedders[offer.remote] ?? [], sources: remote.sources,
                trustedKeys: keys, downloader: downloader) { p in progress?(.downloading(name: "\(name) (embedder \(offer.entry.embedder.id))", p)) }
            defer { withExtendedLifetime(modelLock) {} }
            // An update tries the delta from the installed version first (DeltaUpdate.swift).
            var deltaBytes: Int64 = 0
            if !repairing {
                switch try await updateByDelta(offer, name: name, sources: remote.sources, token: token, keys: keys) {
                case .none: break
                case let .installed(_, bytes):
                    LifecycleStep.reached("delta-discarded")
                    progress?(.installed(name: name, version: version))
                    return .init(name: name, kind: previous == nil ? .installed : .updated, version: version, previousVersion: previous,
                                 via: .delta, bytesDownloaded: bytes)
                case let .failed(error, bytes): (deltaBytes, deltaError) = (bytes, error)
                }
            }
            let download = try await fetchBundle(offer, name: name, sources: remote.sources, token: token)
            LifecycleStep.reached("downloaded")
            progress?(.verifying(name: name))
            try installDownload(download, of: offer, keys: keys, lock: lock)
            LifecycleStep.reached("download-discarded")
            progress?(.installed(name: name, version: version))
            let kind: CorpusClient.Outcome.Kind = repairing ? .repaired : (previous == nil ? .installed : .updated)
            return .init(name: name, kind: kind, version: version, previousVersion: previous, via: .full,
                         bytesDownloaded: deltaBytes + download.size, deltaError: deltaError)
        } catch let e as SyncError {
            return .init(name: name, kind: .failed, version: repairing ? version : nil, error: e, deltaError: deltaError)
        } catch {
            return .init(name: name, kind: .failed, error: .carrying(error, what: name), deltaError: deltaError)
        }
    }

    /// The token for an entitled corpus (refused before any request when there is none); nil for a free one.
    private func bearerToken(for offer: OfferedCorpus) throws -> String? {
        guard offer.entry.access == .entitled else { return nil }
        guard let token = operation.settings.token else { throw SyncError.entitlementRequired(file: offer.entry.id) }
        return token
    }

    private func fetchBundle(_ offer: OfferedCorpus, name: String, sources: [Source], token: String?) async throws -> VerifiedDownload {
        if let payload = offer.entry.payload {
            return try await fetchEncryptedBundle(offer, payload: payload, name: name, sources: sources, token: token)
        }
        do {
            return try await downloader.download(offer.entry.bundle, from: sources, token: token) { p in
                progress?(.downloading(name: name, p))
            }
        } catch let e as SyncError where e.isOutOfSpace {
            // A partial that filled the disk is worth less than the space it holds.
            downloader.discard(offer.entry.bundle.digest)
            throw e
        }
    }

    /// Verifies the download's manifest (once) against the catalog keys of the remote's newest root and the catalog's
    /// promise, installs it, then removes the download; a bundle that does not install is removed
    /// too (it is of no use, or the space is needed back).
    private func installDownload(_ download: VerifiedDownload, of offer: OfferedCorpus, keys: [PublicKey], lock: FileLock) throws {
        defer { downloader.discard(download.downloadDigest) }
        let bundle = try VerifiedBundle.open(download, trustedKeys: keys)
        try Installer.Expectation(id: offer.entry.id, version: offer.entry.version, content: offer.entry.content).check(bundle.manifest)
        try installer.install(bundle, remote: offer.remote, bundled: offer.entry.bundled, holding: lock, importLimit: operation.importLimit)
    }
}

extension SyncError {
    /// A write failed because the volume (or the process's file size limit) is full.
    public var isOutOfSpace: Bool {
        guard case let .io(_, _, code) = self else { return false }
        return code == ENOSPC || code == EFBIG || code == EDQUOT
    }

    /// A write that failed because the volume is full (ENOSPC): unlike a quota or a file-size
    /// limit, free space measures it.
    var isVolumeFull: Bool {
        guard case let .io(_, _, code) = self else { return false }
        return code == ENOSPC
    }
}
