import CorpusEngine
import CorpusFormat
import Foundation

/// Carrying out a sync plan: each action in turn, every one attempted, each reported as an
/// `Outcome`. A kept corpus is checked for damage first (cheaply; see `damage(of:)`) and a damaged
/// one is reinstalled from its catalog, verified, as `repaired`.
extension CorpusClient {
    /// What every action of one run shares.
    struct Execution {
        let config: ClientConfig
        let importLimit: Int?
        let downloader: Downloader
        let installer: Installer
        let roots: [String: PublicKey]
        let embedders: [String: [CatalogEmbedder]]
        let offered: [OfferedCorpus]
        let progress: (@Sendable (Progress) -> Void)?
    }

    func execute(_ plan: [SyncAction], roots: [String: PublicKey], embedders: [String: [CatalogEmbedder]] = [:],
                 offered: [OfferedCorpus] = [], progress: (@Sendable (Progress) -> Void)?) async throws -> [Outcome] {
        let run = Execution(config: try ClientConfig.load(home), importLimit: try importLimit(),
                            downloader: Downloader(home: home, client: try HTTPClient(configuration: httpConfiguration), retry: retry),
                            installer: Installer(home: home), roots: roots, embedders: embedders,
                            offered: offered, progress: progress)
        // Shared while downloading, so `gc` (which takes it exclusively) never deletes a live partial.
        var downloadsLock = plan.contains(where: \.needsDownload) ? try sharedDownloadsLock() : nil
        defer { withExtendedLifetime(downloadsLock) {} }
        var outcomes: [Outcome] = []
        for action in plan {
            switch action {
            case let .keep(have):
                outcomes.append(await keep(have, run, downloadsLock: &downloadsLock))
            case let .refuse(name, reason):
                outcomes.append(Outcome(name: name, kind: .failed, error: Self.error(for: reason, name: name)))
            case let .remove(have):
                do {
                    try run.installer.remove(remote: have.remote, id: have.id)
                    outcomes.append(Outcome(name: have.qualifiedName, kind: .removed, previousVersion: have.version.description))
                } catch let e as SyncError {
                    outcomes.append(Outcome(name: have.qualifiedName, kind: .failed, error: e))
                }
            case let .install(offer):
                outcomes.append(await install(offer, previous: nil, repairing: false, run))
            case let .update(from, offer):
                outcomes.append(await install(offer, previous: from.version.description, repairing: false, run))
            }
        }
        return outcomes
    }

    static func error(for refusal: SyncRefusal, name: String) -> SyncError {
        switch refusal {
        case .notFound: return .notFound(file: "corpus \(name)")
        case let .ambiguous(candidates): return .ambiguousName(name: name, candidates: candidates)
        case let .versionNotOffered(v): return .notFound(file: "version \(v) of \(name)")
        case let .importLimit(used, limit): return .importLimit(used: used, limit: limit)
        }
    }

    /// A corpus the plan keeps: repaired when its files no longer verify, and its model restored
    /// when the model folder went missing.
    func keep(_ have: InstalledCorpusRecord, _ run: Execution, downloadsLock: inout FileLock?) async -> Outcome {
        do {
            if let damage = damage(of: have) {
                // Only the version the catalog offers can be fetched again.
                guard let offer = run.offered.first(where: { $0.remote == have.remote && $0.entry.id == have.id && $0.entry.version == have.version }) else {
                    return Outcome(name: have.qualifiedName, kind: .failed, version: have.version.description, error: damage)
                }
                if downloadsLock == nil { downloadsLock = try sharedDownloadsLock() }
                return await install(offer, previous: nil, repairing: true, run)
            }
            try await EmbedderInstaller(home: home).repair(have, remote: run.config.remote(named: have.remote), rootKey: run.roots[have.remote],
                                                           offered: run.embedders[have.remote] ?? [], downloader: run.downloader)
            return Outcome(name: have.qualifiedName, kind: .unchanged, version: have.version.description)
        } catch let e as SyncError {
            return Outcome(name: have.qualifiedName, kind: .failed, version: have.version.description, error: e)
        } catch {
            return Outcome(name: have.qualifiedName, kind: .failed, version: have.version.description,
                           error: .carrying(error, what: have.qualifiedName))
        }
    }

    /// Why an installed corpus's current version cannot be trusted any more, or nil when it is intact.
    ///
    /// Hashing every file on every sync would cost seconds per large corpus, so the sizes and
    /// modification times recorded at install decide first; only a folder whose files changed (or
    /// whose record predates the stamps) is checked in full, as `corpus verify` does. A folder that
    /// passes the full check gets its stamps recorded afresh.
    func damage(of have: InstalledCorpusRecord) -> SyncError? {
        guard let dir = home.currentVersionDirectory(remote: have.remote, id: have.id),
              var record = InstallRecord.read(versionDirectory: dir) else { return nil }
        if record.stampsMatch(dir) { return nil }
        if let error = fullCheck(directory: dir, remote: have.remote, name: have.qualifiedName) { return error }
        record.files = FileStamp.folder(dir)
        if let bytes = try? JSONEncoder().encode(record) {
            try? FileIO.writeAtomically(bytes, to: "\(dir)/\(InstallRecord.fileName)")
        }
        return nil
    }

    /// Every file against the signed manifest, the signature against the keys trusted for
    /// `remote`, and the pack opened as searches open it with its integrity check.
    func fullCheck(directory: String, remote: String, name: String) -> SyncError? {
        do {
            try InstalledVerifier.verify(directory: directory, trustedKeys: verificationKeys(for: remote))
        } catch {
            return .carrying(error, what: name)
        }
        do {
            try InstalledCorpus.checkExtracted(folder: directory, remote: remote)
            return nil
        } catch let e as EngineError {
            // Every refusal of the pack check, whether or not it is one of trust: the folder is unusable.
            return .unsafePack(corpus: name, cause: e)
        } catch {
            return .carrying(error, what: name)
        }
    }

    /// Downloads, verifies and installs one offered corpus; `repairing` reinstalls the version
    /// that is already current (its files were found damaged).
    func install(_ offer: OfferedCorpus, previous: String?, repairing: Bool, _ run: Execution) async -> Outcome {
        let name = "\(offer.remote)/\(offer.entry.id)"
        let version = offer.entry.version.description
        do {
            guard let remote = run.config.remote(named: offer.remote), let rootKey = run.roots[offer.remote] else {
                throw SyncError.notFound(file: "remote \(offer.remote)")
            }
            let useToken = offer.entry.access == .entitled ? token : nil
            if offer.entry.access == .entitled && useToken == nil {
                throw SyncError.entitlementRequired(file: offer.entry.id)
            }
            // The corpus lock is held from before the download to the swap: a second
            // process installing the same corpus waits here, then finds it done.
            let lock = try run.installer.corpusLock(remote: offer.remote, id: offer.entry.id, wait: lockWait)
            defer { withExtendedLifetime(lock) {} }
            if !repairing, let dir = home.currentVersionDirectory(remote: offer.remote, id: offer.entry.id),
               InstallRecord.read(versionDirectory: dir)?.version == offer.entry.version {
                return Outcome(name: name, kind: .unchanged, version: version)
            }
            // The model the corpus names comes first, so the corpus is searchable the moment it appears.
            let modelLock = try await EmbedderInstaller(home: home).ensure(
                offer.entry.embedder, for: name, offered: run.embedders[offer.remote] ?? [], sources: remote.sources,
                trustedKeys: [rootKey], downloader: run.downloader) { p in run.progress?(.downloading(name: "\(name) (embedder \(offer.entry.embedder.id))", p)) }
            defer { withExtendedLifetime(modelLock) {} }
            let download = try await fetchBundle(offer, name: name, sources: remote.sources, token: useToken, run)
            LifecycleStep.reached("downloaded")
            run.progress?(.verifying(name: name))
            do {
                try run.installer.install(bundlePath: download.path, remote: offer.remote,
                                          expected: .init(id: offer.entry.id, version: offer.entry.version, content: offer.entry.content),
                                          bundled: offer.entry.bundled, trustedKeys: [rootKey], holding: lock,
                                          importLimit: run.importLimit)
            } catch {
                // A bundle that does not install is of no use (or needs the space back).
                run.downloader.discard(download.digest)
                throw error
            }
            run.downloader.discard(download.digest)
            LifecycleStep.reached("download-discarded")
            run.progress?(.installed(name: name, version: version))
            let kind: Outcome.Kind = repairing ? .repaired : (previous == nil ? .installed : .updated)
            return Outcome(name: name, kind: kind, version: version, previousVersion: previous)
        } catch let e as SyncError {
            return Outcome(name: name, kind: .failed, version: repairing ? version : nil, error: e)
        } catch {
            return Outcome(name: name, kind: .failed, error: .carrying(error, what: name))
        }
    }

    private func fetchBundle(_ offer: OfferedCorpus, name: String, sources: [Source], token: String?, _ run: Execution) async throws -> VerifiedDownload {
        do {
            return try await run.downloader.download(offer.entry.bundle, from: sources, token: token) { p in
                run.progress?(.downloading(name: name, p))
            }
        } catch let e as SyncError where e.isOutOfSpace {
            // A partial that filled the disk is worth less than the space it holds.
            run.downloader.discard(offer.entry.bundle.digest)
            throw e
        }
    }

    /// The keys an installed corpus of `remote` may be signed by: the newest root of every
    /// configured remote, and for imported corpora the keys imports were trusted with.
    func verificationKeys(for remote: String) -> [PublicKey] {
        let trust = TrustStore(home: home)
        var keys = ((try? ClientConfig.load(home))?.remotes ?? []).compactMap { try? trust.currentRoot(for: $0).key }
        if remote == HomeLayout.localRemote { keys += trust.localKeys() }
        return keys
    }
}

extension HomeLayout {
    /// The folders `createFolders` makes, parents first (without `locks/`, whose files may stay).
    var layoutFolders: [String] { [root, downloads, staging, "\(root)/trust", "\(root)/state", corpora] }
}
