import CorpusEngine
import CorpusFormat
import Foundation

/// Installs a verified bundle file into the home folder, so that at every instant the corpus's
/// `current` link points at a complete version folder or does not exist:
///
/// 1. take the corpus lock (unless the caller holds it: an install from a catalog takes it before
///    downloading);
/// 2. check the manifest is the one the catalog promised (id, version, content digest; the
///    manifest's signature was verified once, when the bundle was opened: `VerifiedBundle`);
/// 3. check the volume has room for the unpacked members and the index built at install
///    (`InstallSpace`), then extract straight into a new folder in `staging/` (same volume) with
///    every format check (`BundleReader.extract(_:into:)`), each file fsynced, and build the index
///    when the pack ships without it (`LocalPackIndex`); a volume that fills up meanwhile is
///    `insufficientSpace` with what it needs, never a refusal of the pack;
/// 4. open the pack once the way the engine will, with an integrity check (`InstalledCorpus.checkExtracted`);
/// 5. write `install.json` and fsync the folder; for a new corpus under an import limit, take the
///    home's import lock and count the imported corpora again (another process may have added one
///    since the plan);
/// 6. rename the staging folder to `versions/<version>`;
/// 7. point `current` at it with a symlink created beside it and renamed over it.
///
/// A process killed at any step leaves either the old state or the new one; leftovers in
/// `staging/` are removed by `gc`. Folders are deleted by renaming them into `staging/` first,
/// so no version folder is ever seen with some of its files gone.
public struct Installer: Sendable {
    public let home: HomeLayout

    public init(home: HomeLayout) {
        self.home = home
    }

    /// What the bundle must contain, from the signed catalog (or nil for a local import).
    public struct Expectation: Sendable {
        public var id: String
        public var version: CorpusVersion
        public var content: SHA256Digest

        public init(id: String, version: CorpusVersion, content: SHA256Digest) {
            self.id = id
            self.version = version
            self.content = content
        }

        /// Refuses a bundle whose signed manifest is another corpus, version or content than promised.
        func check(_ manifest: Manifest) throws {
            guard manifest.id == id, manifest.version == version, manifest.content == content else {
                throw SyncError.catalogMismatch(reason: "the bundle holds \(manifest.id) \(manifest.version), the catalog promised \(id) \(version)")
            }
        }
    }

    /// Opens `bundlePath`, verifies its manifest and that it is the corpus `expected` names (when
    /// given), and installs it: `install(_:remote:bundled:…)` for a file not opened yet.
    @discardableResult
    public func install(bundlePath: String, remote: String, expected: Expectation?, bundled: Bool,
                        trustedKeys: [PublicKey], lockWait: FileLock.Wait = .upTo(seconds: 30),
                        holding lock: FileLock? = nil, importLimit: Int? = nil) throws -> Manifest {
        try Identifier.validate(remote, what: "remote name")
        let bundle = try VerifiedBundle.open(bundlePath, trustedKeys: trustedKeys)
        if let expected { try expected.check(bundle.manifest) }
        return try install(bundle, remote: remote, bundled: bundled, lockWait: lockWait, holding: lock, importLimit: importLimit)
    }

    /// Installs a verified bundle as `remote`'s corpus; returns the installed manifest.
    ///
    /// A `versions/<version>` folder already there is reused only if its own files verify with the
    /// keys the bundle was verified with (`bundle.trustedKeys`).
    ///
    /// - Parameter lock: the corpus lock when the caller already holds it (it took it before
    ///   downloading); otherwise the installer takes it, waiting as `lockWait` says.
    /// - Parameter importLimit: the import limit in force; a corpus that is neither bundled nor
    ///   installed yet is refused (`SyncError.importLimit`, nothing changed) when the home
    ///   already holds that many non-bundled corpora at the moment it would be added.
    @discardableResult
    public func install(_ bundle: VerifiedBundle, remote: String, bundled: Bool,
                        lockWait: FileLock.Wait = .upTo(seconds: 30), holding lock: FileLock? = nil,
                        importLimit: Int? = nil) throws -> Manifest {
        try Identifier.validate(remote, what: "remote name")
        let manifest = bundle.manifest
        try createFolders()
        let ownLock = lock == nil ? try corpusLock(remote: remote, id: manifest.id, wait: lockWait) : nil
        defer { withExtendedLifetime(ownLock) {} }
        LifecycleStep.reached("locked")

        let versionDir = home.versionDirectory(remote: remote, id: manifest.id, version: manifest.version.description)
        var staged: String?
        defer { if let staged { FileIO.remove(staged) } }
        if !isReusable(versionDir, remote: remote, manifest: manifest, trustedKeys: bundle.trustedKeys) {
            staged = try stage(bundle, remote: remote, bundled: bundled)
        }
        let gate = try importGate(remote: remote, id: manifest.id, bundled: bundled, limit: importLimit, wait: lockWait)
        defer { withExtendedLifetime(gate) {} }
        if let staging = staged {
            try moveIntoPlace(staging, as: versionDir, remote: remote, id: manifest.id)
            staged = nil
        }
        try pointCurrent(remote: remote, id: manifest.id, version: manifest.version.description)
        LifecycleStep.reached("current-pointed")
        return manifest
    }

    /// Extracts the bundle straight into a new folder in `staging/` (same volume as `versions/`;
    /// the one staging of an install) with every bundle check, runs the engine's pack check on it,
    /// writes its `install.json`, and syncs the folder once; returns the folder. Removed again
    /// when any of it fails; the caller removes it if anything after this fails.
    private func stage(_ bundle: VerifiedBundle, remote: String, bundled: Bool) throws -> String {
        let manifest = bundle.manifest
        // Before writing anything: the members unpacked and the index the client builds (the
        // download's own room was checked before it was requested).
        let available = try FreeSpace.require(InstallSpace.needed(for: manifest), at: home.staging)
        // The pid leads the name so that `gc` can tell a live install's folder from a dead one's.
        let staging = "\(home.staging)/\(getpid()).\(UInt32.random(in: 0...UInt32.max)).\(remote).\(manifest.id).\(manifest.version)"
        guard mkdir(staging, 0o755) == 0 else { throw SyncError.io(operation: "create directory", path: staging, errno: errno) }
        var staged = false
        defer { if !staged { FileIO.remove(staging) } }
        let localPack: InstallRecord.LocalPack?
        do {
            do {
                var started: Set<String> = []
                try bundle.reader.extract(bundle.verified, into: staging) { p in
                    if started.insert(p.member).inserted { LifecycleStep.reached("extracting:\(p.member)") }
                    if p.bytesDone == p.bytesTotal { LifecycleStep.reached("extracted:\(p.member)") }
                }
            } catch let e as FormatError {
                throw SyncError.from(e)
            } catch let e as AgeError {
                // An encrypted bundle's payload that no longer authenticates while it is read.
                throw SyncError.decryption(file: bundle.path, cause: e)
            }
            LifecycleStep.reached("extracted")
            localPack = try LocalPackIndex.buildIfNeeded(folder: staging, manifest: manifest, remote: remote)
        } catch let e as SyncError where e.isVolumeFull {
            // The room counted was not enough (an index larger than counted, or another process
            // took the space meanwhile): it needs more than it had, and the room the largest index
            // measured would take is worth freeing; what is free is measured once the staged
            // files are gone again.
            FileIO.remove(staging)
            throw SyncError.insufficientSpace(path: home.staging, needed: max(InstallSpace.largest(for: manifest), available),
                                              margin: FreeSpace.margin, available: (try? FreeSpace.available(at: home.staging)) ?? 0)
        }
        do {
            try InstalledCorpus.checkExtracted(folder: staging, remote: remote)
        } catch let e as EngineError {
            throw SyncError.unsafePack(corpus: "\(remote)/\(manifest.id)", cause: e)
        }
        LifecycleStep.reached("pack-checked")
        let file = try bundle.hashed()
        var record = InstallRecord(remote: remote, id: manifest.id, version: manifest.version, bundled: bundled,
                                   bundleSHA256: file.sha256.hex, bundleSize: file.size, installed: Date())
        // Verified just now: later runs compare against these to notice damage without hashing.
        record.localPack = localPack
        record.files = FileStamp.folder(staging)
        // A new file in a folder nobody sees until the rename below: no atomic replace needed.
        try io { try FileIO.writeNew(try JSONEncoder().encode(record), to: "\(staging)/\(InstallRecord.fileName)") }
        FileIO.syncDirectory(staging)
        LifecycleStep.reached("install-record-written")
        staged = true
        return staging
    }

    /// Renames the staged folder to `versions/<version>`; a leftover folder of that version that
    /// did not verify is moved aside whole first.
    func moveIntoPlace(_ staging: String, as versionDir: String, remote: String, id: String) throws {
        let versions = home.versionsDirectory(remote: remote, id: id)
        try io { try FileIO.createDirectory(versions) }
        try discardTree(versionDir)
        guard rename(staging, versionDir) == 0 else { throw SyncError.io(operation: "rename", path: versionDir, errno: errno) }
        FileIO.syncDirectory(versions)
        LifecycleStep.reached("version-renamed")
    }

    /// True when `versions/<version>` already holds this exact, complete version (a rerun after a
    /// crash between the rename and the link, or a reinstall of a version `gc` has not removed):
    /// its files match its signed manifest, which is the one being installed, and the pack opens.
    func isReusable(_ versionDir: String, remote: String, manifest: Manifest, trustedKeys: [PublicKey]) -> Bool {
        guard let record = InstallRecord.read(versionDirectory: versionDir),
              record.id == manifest.id, record.version == manifest.version,
              let bytes = FileManager.default.contents(atPath: "\(versionDir)/\(BundleLayout.manifest)"),
              (try? Manifest.decode(bytes)) == manifest else { return false }
        do {
            try InstalledVerification.verifyFiles(directory: versionDir, trustedKeys: trustedKeys)
            try InstalledCorpus.checkExtracted(folder: versionDir, remote: remote)
            return true
        } catch {
            return false
        }
    }

    /// Moves `current` to `versions/<version>` atomically (symlink beside it, then rename over it).
    /// Called with the corpus lock held, so the temporary link name cannot clash.
    public func pointCurrent(remote: String, id: String, version: String) throws {
        let link = home.currentLink(remote: remote, id: id)
        let tmp = "\(link)\(Self.linkTemporarySuffix)\(getpid())"
        unlink(tmp)
        guard symlink("versions/\(version)", tmp) == 0 else { throw SyncError.io(operation: "symlink", path: tmp, errno: errno) }
        LifecycleStep.reached("link-created")
        guard rename(tmp, link) == 0 else {
            let e = errno
            unlink(tmp)
            throw SyncError.io(operation: "rename", path: link, errno: e)
        }
        LifecycleStep.reached("link-renamed")
        FileIO.syncDirectory(home.corpusDirectory(remote: remote, id: id))
    }

    /// `current.tmp-<pid>`: the link being made; `gc` removes ones a killed process left.
    static let linkTemporarySuffix = ".tmp-"

    /// Removes a corpus: its `current` link first (so searches stop seeing it), then its folder.
    public func remove(remote: String, id: String) throws {
        let lock = try corpusLock(remote: remote, id: id, wait: .upTo(seconds: 30))
        defer { withExtendedLifetime(lock) {} }
        let link = home.currentLink(remote: remote, id: id)
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil else {
            throw SyncError.notInstalled(name: "\(remote)/\(id)")
        }
        guard unlink(link) == 0 else { throw SyncError.io(operation: "unlink", path: link, errno: errno) }
        FileIO.syncDirectory(home.corpusDirectory(remote: remote, id: id))
        LifecycleStep.reached("current-unlinked")
        try discardTree(home.corpusDirectory(remote: remote, id: id))
        // Its kept log proof, and the note only it named, go with it. Not done (the lock busy): the
        // next catalog commit prunes them; neither is read for a corpus that is not installed.
        try? LogState(home: home).pruneKeptProofs(remote: remote)
    }

    /// Deletes a folder tree so that it is never seen half-deleted: it is first renamed into
    /// `staging/` (one atomic step), then deleted there. A crash mid-delete leaves a leftover in
    /// `staging/` for `gc`, never a version folder missing some of its files.
    func discardTree(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        try io { try FileIO.createDirectory(home.staging) }
        let trash = "\(home.staging)/\(getpid()).\(UInt32.random(in: 0...UInt32.max)).trash"
        guard rename(path, trash) == 0 else { throw SyncError.io(operation: "rename", path: path, errno: errno) }
        LifecycleStep.reached("tree-moved-aside")
        FileIO.remove(trash)
    }

    /// For a new, non-bundled corpus under a limit: the home-wide import lock, taken after the
    /// count of imported corpora was found below the limit. Held until `current` is linked, it
    /// makes "count, then add one" a single step across processes: the plan counted too, but
    /// two processes installing different corpora could both pass it. Nil when nothing counts.
    func importGate(remote: String, id: String, bundled: Bool, limit: Int?, wait: FileLock.Wait) throws -> FileLock? {
        guard let limit, !bundled, home.currentVersionDirectory(remote: remote, id: id) == nil else { return nil }
        let lock = try HomeLocks(home: home).importLimit(wait: wait)
        // Counted again under the lock (the operation's own list may be stale by now), from the
        // install records alone: no manifest or folder size is read here.
        let used = home.importsUsed()
        guard used < limit else { throw SyncError.importLimit(used: used, limit: limit) }
        return lock
    }

    func corpusLock(remote: String, id: String, wait: FileLock.Wait) throws -> FileLock {
        try HomeLocks(home: home).corpus(remote: remote, id: id, wait: wait)
    }

    private func createFolders() throws {
        try io { try home.createFolders() }
    }
}

/// Runs a format-layer file operation, reporting its failure as the client's own error.
func io<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as FormatError { throw SyncError.from(e) }
}
