import CorpusFormat
import Foundation

/// Updating an installed corpus by delta when the catalog offers one from the installed version
/// (docs/client.md "Updates by delta"): pick it, download it like a bundle (resumable, hash and
/// size from the signed catalog), and install it with `DeltaInstaller`. Any failure but
/// cancellation is handed back so that the caller takes the full bundle instead.
extension PlanExecutor {
    /// What a delta attempt came to.
    enum DeltaAttempt {
        /// No delta applies (none offered from the installed version, or the installed version is
        /// damaged): take the full bundle, nothing to say.
        case none
        case installed(Manifest, bytes: Int64)
        /// A delta was tried and not used; `bytes` were downloaded for it.
        case failed(SyncError, bytes: Int64)
    }

    /// The delta the catalog lists from the version of `offer`'s corpus installed now, with that
    /// version, or nil when there is none or the installed files are not as installed (a damaged
    /// base goes the full way, where the repair happens).
    func deltaBase(for offer: OfferedCorpus) -> (DeltaRef, DeltaInstaller.Base)? {
        guard let deltas = offer.entry.deltas, !deltas.isEmpty,
              let dir = home.currentVersionDirectory(remote: offer.remote, id: offer.entry.id),
              let record = InstallRecord.read(versionDirectory: dir), record.stampsMatch(dir),
              let bytes = FileManager.default.contents(atPath: "\(dir)/\(BundleLayout.manifest)"),
              let manifest = try? Manifest.decode(bytes) else { return nil }
        guard let delta = deltas.first(where: { $0.fromVersion == manifest.version && $0.fromContent == manifest.content }) else { return nil }
        return (delta, DeltaInstaller.Base(directory: dir, manifest: manifest, record: record))
    }

    /// Downloads and installs the delta to `offer` if one applies; the caller holds the corpus lock.
    func updateByDelta(_ offer: OfferedCorpus, name: String, sources: [Source], token: String?, keys: [PublicKey]) async throws -> DeltaAttempt {
        guard let (delta, base) = deltaBase(for: offer) else { return .none }
        var bytes: Int64 = 0
        do {
            let label = "\(name) (delta from \(delta.fromVersion))"
            let download: VerifiedDownload
            if let payload = delta.payload {
                // Encrypted like its bundle: key from the gate, payload from any source (EncryptedBundleFetch.swift).
                let key = try await requestKey(payload: payload, remote: offer.remote, token: token, what: label)
                download = try await fetchEncrypted(payload, plaintext: delta.file, key: key, sources: sources) { p in
                    progress?(.downloading(name: label, p))
                }
                bytes = payload.size
            } else {
                download = try await downloader.download(delta.file, from: sources, token: token) { p in
                    progress?(.downloading(name: label, p))
                }
                bytes = download.size
            }
            LifecycleStep.reached("delta-downloaded")
            defer { downloader.discard(download.downloadDigest) }
            progress?(.verifying(name: name))
            let manifest: Manifest
            do {
                manifest = try DeltaInstaller(installer: installer).install(
                    download, base: base,
                    expected: .init(id: offer.entry.id, version: offer.entry.version, content: offer.entry.content),
                    bundle: offer.entry.bundle, remote: offer.remote, bundled: offer.entry.bundled, trustedKeys: keys)
            } catch let e as AgeError {
                // An encrypted delta's payload that no longer authenticates while it is read.
                throw SyncError.decryption(file: download.path, cause: e)
            }
            return .installed(manifest, bytes: bytes)
        } catch SyncError.cancelled {
            throw SyncError.cancelled
        } catch is CancellationError {
            throw SyncError.cancelled
        } catch {
            downloader.discard(delta.digest)
            return .failed(.carrying(error, what: name), bytes: bytes)
        }
    }
}
