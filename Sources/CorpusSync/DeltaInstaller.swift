import CorpusEngine
import CorpusFormat
import Foundation
import Synchronization

/// Installs the next version of a corpus from a verified delta download and the installed
/// version (docs/client.md "Updates by delta"), with the same guarantees as a full install:
/// everything is built and checked in a `staging/` folder, which becomes `versions/<version>` by
/// one rename, and `current` moves with one more; a failure at any step leaves the home as it was.
///
/// 1. `delta.json` is verified with the root key and must join the installed version (version,
///    content digest, vector file, rows digest) to the version the catalog offers; the manifest it
///    carries must be signed by the root key and be the one the catalog promised.
/// 2. The installed pack is copied into staging, hashed as it is copied (it must still be the pack
///    that was installed), and patched in one SQLite transaction (`PackPatcher`).
/// 3. Meanwhile, on the other core, the new vector file is written from the installed one and the
///    delta's vectors (`VectorFilePatch`); its SHA-256 and size must be the signed manifest's.
/// 4. The patched pack's rows digest and content digest must be the signed manifest's
///    (`PackDigest`), and it must open as searches open it.
/// 5. `install.json` records the delta and the pack's own hash (`InstallRecord.localPack`), so
///    `corpus verify` can check the file byte for byte as well as against the manifest.
struct DeltaInstaller: Sendable {
    let installer: Installer
    var home: HomeLayout { installer.home }

    /// The installed version a delta starts from, as read once before the update.
    struct Base: Sendable {
        let directory: String
        let manifest: Manifest
        let record: InstallRecord

        /// The SHA-256 the installed pack file must have: the bundle's, or this client's own for a
        /// pack it patched earlier.
        var packSHA256: String { record.localPack?.packSHA256 ?? manifest.members[BundleLayout.pack]!.sha256.hex }
    }

    /// Builds and swaps in the version `expected` names from the downloaded delta (read through
    /// its payload when encrypted).
    /// `bundle` is the version's bundle in the catalog, which the install record names as what it holds.
    func install(_ delta: VerifiedDownload, base: Base, expected: Installer.Expectation, bundle: BundleRef,
                 remote: String, bundled: Bool, trustedKeys: [PublicKey]) throws -> Manifest {
        let reader = try io {
            guard let payload = delta.payload else { return try DeltaReader(path: delta.path) }
            return try DeltaReader(payload: AgePayloadReader(path: delta.path, fileKey: payload.key))
        }
        let document = try io { try reader.document(trustedKeys: trustedKeys) }
        try Self.checkJoins(document, base: base.manifest, expected: expected)
        let (manifest, manifestBytes, signature) = try io { try reader.manifest(of: document, trustedKeys: trustedKeys) }
        try expected.check(manifest)
        guard manifest.rowsDigest != nil else {
            throw DeltaError.resultMismatch(what: "a pack", expected: "a manifest naming a rows digest", actual: "none to check it against")
        }

        let staging = "\(home.staging)/\(getpid()).\(UInt32.random(in: 0...UInt32.max)).\(remote).\(manifest.id).\(manifest.version)"
        try io { try FileIO.createDirectory(home.staging) }
        guard mkdir(staging, 0o755) == 0 else { throw SyncError.io(operation: "create directory", path: staging, errno: errno) }
        var staged = false
        defer { if !staged { FileIO.remove(staging) } }
        let packFile = try build(reader, document, manifest: manifest, base: base, staging: staging)
        LifecycleStep.reached("delta-verified")

        try io { try FileIO.writeAtomically(manifestBytes, to: "\(staging)/\(BundleLayout.manifest)") }
        try io { try FileIO.writeAtomically(Data(signature.fileText.utf8), to: "\(staging)/\(BundleLayout.signature)") }
        // Opened as searches open it (schema, meta and counts against the manifest, vectors). Its
        // pages are not read again with quick_check: they are the installed pack's, checked when it
        // was installed and hashed while copied, as changed by SQLite itself, and every row was
        // just read for the rows digest.
        do {
            _ = try InstalledCorpus(folder: staging, remote: remote)
        } catch let e as EngineError {
            throw SyncError.unsafePack(corpus: "\(remote)/\(manifest.id)", cause: e)
        }
        LifecycleStep.reached("pack-checked")
        try writeRecord(staging: staging, manifest: manifest, remote: remote, bundled: bundled, bundle: bundle, delta: delta.digest,
                        pack: packFile)
        LifecycleStep.reached("install-record-written")

        let versionDir = home.versionDirectory(remote: remote, id: manifest.id, version: manifest.version.description)
        try installer.moveIntoPlace(staging, as: versionDir, remote: remote, id: manifest.id)
        staged = true
        try installer.pointCurrent(remote: remote, id: manifest.id, version: manifest.version.description)
        LifecycleStep.reached("current-pointed")
        return manifest
    }

    /// Steps 2 to 4 in `staging`: the patched pack and the new vector file, checked against the
    /// signed manifest. Returns the pack file's SHA-256 and size, for the install record.
    private func build(_ reader: DeltaReader, _ document: DeltaDocument, manifest: Manifest, base: Base,
                       staging: String) throws -> (SHA256Digest, Int64) {
        let pack = "\(staging)/\(BundleLayout.pack)", vectors = "\(staging)/\(BundleLayout.vectors)"
        let changes = try io { try DeltaChanges.decode(try reader.changes(of: document), passages: manifest.passages) }
        let added = "\(staging)/.delta-vectors.bin"
        defer { FileIO.remove(added) }
        try io { try reader.extractVectors(of: document, to: added) }
        // The pack and the vector file are independent: each is built on a core of its own, then
        // the pack's rows digest and its file hash are computed side by side too.
        let baseDirectory = base.directory, basePack = base.packSHA256
        try Self.inParallel({
            try Self.copy("\(baseDirectory)/\(BundleLayout.pack)", to: pack, expecting: basePack)
            LifecycleStep.reached("delta-copied")
            try PackPatcher.apply(changes, toPackAt: pack, manifest: manifest)
            LifecycleStep.reached("delta-applied")
        }, {
            try Self.writeVectors(changes, base: "\(baseDirectory)/\(BundleLayout.vectors)", added: added, manifest: manifest, to: vectors)
        })
        LifecycleStep.reached("delta-vectors-written")
        let results = Mutex<(digests: PackDigest.Digests?, file: (SHA256Digest, Int64)?)>((nil, nil))
        try Self.inParallel({
            let d = try PackDigest.compute(packAt: pack, embedderID: manifest.embedder.id)
            results.withLock { $0.digests = d }
        }, {
            let f = try io { try SHA256.digest(fileAt: pack) }
            results.withLock { $0.file = f }
        })
        let (digests, packFile) = results.withLock { ($0.digests!, $0.file!) }
        guard digests.content == manifest.content else {
            throw DeltaError.resultMismatch(what: "content digest", expected: manifest.content.hex, actual: digests.content.hex)
        }
        guard digests.rows == manifest.rowsDigest else {
            throw DeltaError.resultMismatch(what: "rows digest", expected: manifest.rowsDigest!.hex, actual: digests.rows.hex)
        }

        return packFile
    }

    /// The delta must lead from exactly the installed version to exactly the offered one.
    static func checkJoins(_ d: DeltaDocument, base: Manifest, expected: Installer.Expectation) throws {
        guard d.id == expected.id, d.to.version == expected.version, d.to.content == expected.content else {
            throw SyncError.catalogMismatch(reason: "the delta leads to \(d.id) \(d.to.version), the catalog promised \(expected.id) \(expected.version)")
        }
        var differences: [String] = []
        if d.from.version != base.version { differences.append("version \(d.from.version), installed \(base.version)") }
        if d.from.content != base.content { differences.append("content digest \(d.from.content.prefix(12))…, installed \(base.content.prefix(12))…") }
        if d.from.vectors != base.members[BundleLayout.vectors]?.sha256 { differences.append("another vector file") }
        if let rows = base.rowsDigest, rows != d.from.rows { differences.append("other rows") }
        guard differences.isEmpty else { throw DeltaError.otherBase(reason: differences.joined(separator: "; ")) }
    }

    /// Copies the installed pack, checking on the way that it is still the file that was installed.
    static func copy(_ source: String, to destination: String, expecting sha256: String) throws {
        let digest = Digest(.sha256)
        let reader = try io { try FileHandleReader(path: source) }
        let fd = SystemCall.retrying { open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw SyncError.io(operation: "create", path: destination, errno: errno) }
        defer { close(fd) }
        try io {
            try reader.forEachChunk { chunk in
                digest.update(chunk)
                try FileIO.writeAll(fd, chunk, path: destination)
            }
        }
        let actual = Hex.encode(digest.finalize())
        guard actual == sha256 else { throw SyncError.hashMismatch(file: source, expected: sha256, actual: actual) }
        // No fsync here: SQLite's commit of the patch syncs the file, these pages included.
    }

    /// The new vector file from the installed one and the delta's; it must be the signed one.
    static func writeVectors(_ changes: DeltaChanges, base: String, added: String, manifest: Manifest, to output: String) throws {
        let listed = changes.rows.map { ($0.row, $0.from.map(VectorFilePatch.Source.base) ?? .delta) }
        let (sha, size) = try io { try VectorFilePatch.write(rows: manifest.passages, listed: listed, base: base, added: added, to: output) }
        let signed = manifest.members[BundleLayout.vectors]!
        guard size == signed.size, sha == signed.sha256 else {
            throw DeltaError.resultMismatch(what: "vectors.bin", expected: "\(signed.sha256.prefix(16))… (\(signed.size) bytes)",
                                            actual: "\(sha.prefix(16))… (\(size) bytes)")
        }
    }

    /// Runs both on two threads and waits for both; throws the first one's error, else the second's.
    static func inParallel(_ first: @escaping @Sendable () throws -> Void, _ second: @escaping @Sendable () throws -> Void) throws {
        let errors = Mutex<[Int: any Error]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do { try (i == 0 ? first : second)() } catch { errors.withLock { $0[i] = error } }
        }
        if let e = errors.withLock({ $0[0] ?? $0[1] }) { throw e }
    }

    private func writeRecord(staging: String, manifest: Manifest, remote: String, bundled: Bool, bundle: BundleRef,
                             delta: SHA256Digest, pack: (digest: SHA256Digest, size: Int64)) throws {
        let (packDigest, packSize) = pack
        var record = InstallRecord(remote: remote, id: manifest.id, version: manifest.version, bundled: bundled,
                                   bundleSHA256: bundle.digest.hex, bundleSize: bundle.size, installed: Date())
        record.localPack = .init(delta: delta.hex, packSHA256: packDigest.hex, packSize: packSize)
        record.files = FileStamp.folder(staging)
        try io { try FileIO.writeAtomically(try JSONEncoder().encode(record), to: "\(staging)/\(InstallRecord.fileName)") }
    }
}
