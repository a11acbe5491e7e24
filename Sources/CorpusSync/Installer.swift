import CorpusFormat
import Foundation

/// Installs a verified bundle file into the home folder, so that at every instant the corpus's
/// `current` link points at a complete version folder or does not exist:
///
/// 1. take the corpus lock;
/// 2. extract into `staging/` (same volume) with every format check (`BundleReader.extract`);
/// 3. check the manifest is the one the catalog promised (id, version, content digest);
/// 4. open the pack once the way the engine will (`packCheck`), with an integrity check;
/// 5. write `install.json`, rename the staging folder to `versions/<version>`;
/// 6. point `current` at it with a symlink created beside it and renamed over it.
///
/// A process killed at any step leaves either the old state or the new one; leftovers in
/// `staging/` are removed by `gc`.
public struct Installer: Sendable {
    public let home: HomeLayout
    /// Opens an extracted version folder as the engine would and throws if it cannot be searched.
    public let packCheck: @Sendable (String) throws -> Void

    public init(home: HomeLayout, packCheck: @escaping @Sendable (String) throws -> Void) {
        self.home = home
        self.packCheck = packCheck
    }

    /// What the bundle must contain, from the signed catalog (or nil for a local import).
    public struct Expectation: Sendable {
        public var id: String
        public var version: CorpusVersion
        public var contentDigest: String

        public init(id: String, version: CorpusVersion, contentDigest: String) {
            self.id = id
            self.version = version
            self.contentDigest = contentDigest
        }
    }

    /// Installs `bundlePath` as `remote`'s corpus; returns the installed manifest.
    @discardableResult
    public func install(bundlePath: String, remote: String, expected: Expectation?, bundled: Bool,
                        trustedKeys: [PublicKey], lockWait: FileLock.Wait = .upTo(seconds: 30)) throws -> Manifest {
        try Identifier.validate(remote, what: "remote name")
        let reader: BundleReader
        let manifest: Manifest
        do {
            reader = try BundleReader(path: bundlePath)
            manifest = try reader.manifest(trustedKeys: trustedKeys).manifest
        } catch let e as FormatError { throw SyncError.from(e) }
        if let expected {
            guard manifest.id == expected.id, manifest.version == expected.version, manifest.contentDigest == expected.contentDigest else {
                throw SyncError.catalogMismatch(reason: "the bundle holds \(manifest.id) \(manifest.version), the catalog promised \(expected.id) \(expected.version)")
            }
        }
        try createFolders()
        let lock = try corpusLock(remote: remote, id: manifest.id, wait: lockWait)
        defer { withExtendedLifetime(lock) {} }

        let versionDir = home.versionDirectory(remote: remote, id: manifest.id, version: manifest.version.description)
        if InstallRecord.read(versionDirectory: versionDir) == nil || !FileIO.exists(versionDir) {
            let staging = "\(home.staging)/\(remote).\(manifest.id).\(manifest.version).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
            defer { FileIO.remove(staging) }
            do {
                _ = try reader.extract(to: staging, trustedKeys: trustedKeys)
            } catch let e as FormatError { throw SyncError.from(e) }
            do {
                try packCheck(staging)
            } catch let e as SyncError {
                throw e
            } catch {
                throw SyncError.malformed(what: "pack of \(manifest.id)", reason: String(describing: error))
            }
            let size = FileIO.fileSize(bundlePath) ?? 0
            let sha = try bundleSHA256(bundlePath)
            let record = InstallRecord(remote: remote, id: manifest.id, version: manifest.version, bundled: bundled,
                                       bundleSHA256: sha, bundleSize: size, installed: Date())
            try io { try FileIO.writeAtomically(try JSONEncoder().encode(record), to: "\(staging)/\(InstallRecord.fileName)") }
            try io { try FileIO.createDirectory(home.versionsDirectory(remote: remote, id: manifest.id)) }
            // A leftover incomplete folder of the same version (no install.json) is replaced.
            FileIO.remove(versionDir)
            guard rename(staging, versionDir) == 0 else { throw SyncError.io(operation: "rename", path: versionDir, errno: errno) }
            FileIO.syncDirectory(home.versionsDirectory(remote: remote, id: manifest.id))
        }
        try pointCurrent(remote: remote, id: manifest.id, version: manifest.version.description)
        return manifest
    }

    /// Moves `current` to `versions/<version>` atomically (symlink beside it, then rename over it).
    public func pointCurrent(remote: String, id: String, version: String) throws {
        let link = home.currentLink(remote: remote, id: id)
        let tmp = "\(link).tmp-\(getpid())"
        unlink(tmp)
        guard symlink("versions/\(version)", tmp) == 0 else { throw SyncError.io(operation: "symlink", path: tmp, errno: errno) }
        guard rename(tmp, link) == 0 else {
            let e = errno
            unlink(tmp)
            throw SyncError.io(operation: "rename", path: link, errno: e)
        }
        FileIO.syncDirectory(home.corpusDirectory(remote: remote, id: id))
    }

    /// Removes a corpus: its `current` link first (so searches stop seeing it), then its folder.
    public func remove(remote: String, id: String) throws {
        let lock = try corpusLock(remote: remote, id: id, wait: .upTo(seconds: 30))
        defer { withExtendedLifetime(lock) {} }
        let link = home.currentLink(remote: remote, id: id)
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil else {
            throw SyncError.notInstalled(name: "\(remote)/\(id)")
        }
        guard unlink(link) == 0 else { throw SyncError.io(operation: "unlink", path: link, errno: errno) }
        FileIO.remove(home.corpusDirectory(remote: remote, id: id))
    }

    public func corpusLock(remote: String, id: String, wait: FileLock.Wait) throws -> FileLock {
        try io { try FileIO.createDirectory(home.locks) }
        do {
            return try FileLock(path: home.lockFile("corpus-\(remote).\(id)"), wait: wait)
        } catch SyncLockError.held(let path) {
            throw SyncError.lockHeld(path: path)
        }
    }

    private func createFolders() throws {
        try io { try home.createFolders() }
    }

    private func bundleSHA256(_ path: String) throws -> String {
        // Downloads are named by their verified hash; avoid hashing a large file twice.
        let name = (path as NSString).lastPathComponent
        if name.hasSuffix(".part"), let sha = name.split(separator: ".").first, sha.count == 64 { return String(sha) }
        return try io { Hex.encode(try SHA256.hash(fileAt: path).digest) }
    }
}

/// Runs a format-layer file operation, reporting its failure as the client's own error.
func io<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as FormatError { throw SyncError.from(e) }
}
