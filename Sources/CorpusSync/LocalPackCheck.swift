import CorpusEngine
import CorpusFormat
import Foundation

/// What `corpus verify` checks for a version whose pack is this client's own file rather than the
/// bundle's (built from a delta, docs/client.md "Updates by delta", or indexed at install): the
/// file's size and SHA-256 as recorded when it was built (any flipped byte), then its rows digest
/// and content digest against the signed manifest (what it holds is what was signed), and FTS5's
/// own integrity check of the index against the rows (on a copy when the pack cannot be written).
/// The vector file is the bundle's byte for byte and is checked against the manifest as for any
/// install.
extension InstalledVerification {
    static func verifyLocalPack(directory: String, local: InstallRecord.LocalPack, manifest: Manifest) throws {
        let path = "\(directory)/\(BundleLayout.pack)"
        let (actual, size) = try io { try SHA256.digest(fileAt: path) }
        guard size == local.packSize else {
            throw SyncError.sizeMismatch(file: BundleLayout.pack, expected: local.packSize, actual: size)
        }
        guard actual.hex == local.packSHA256 else {
            throw SyncError.hashMismatch(file: BundleLayout.pack, expected: local.packSHA256, actual: actual.hex)
        }
        let name = "\(manifest.id) \(manifest.version)"
        let digests: PackDigest.Digests
        do {
            digests = try PackDigest.compute(packAt: path, embedderID: manifest.embedder.id)
            do {
                try PackDigest.checkIndex(packAt: path)
            } catch let e as SQLiteError where e.code == .readOnly {
                try checkIndexOnCopy(of: path, local: local)
            }
        } catch let e as SQLiteError {
            throw SyncError.unsafePack(corpus: name, cause: .sqlite(corpus: name, e))
        }
        guard let rows = manifest.rowsDigest, rows == digests.rows else {
            throw SyncError.delta(corpus: name, cause: .resultMismatch(what: "rows digest", expected: manifest.rowsDigest?.hex ?? "none",
                                                                      actual: digests.rows.hex))
        }
        guard digests.content == manifest.content else {
            throw SyncError.delta(corpus: name, cause: .resultMismatch(what: "content digest", expected: manifest.content.hex,
                                                                      actual: digests.content.hex))
        }
    }

    /// FTS5's integrity check is a write command run in a transaction that is rolled back, and
    /// SQLite 3.40 (Debian 12) has no read-only form of it: a pack this process cannot write (a
    /// read-only home, a file of another user) is checked on a copy in the temporary folder
    /// (`TMPDIR`), hashed as it is copied against the recorded SHA-256, so the copy checked is the
    /// file recorded. No room there is `insufficientSpace` naming the folder (exit 7).
    static func checkIndexOnCopy(of path: String, local: InstallRecord.LocalPack) throws {
        let base = FileManager.default.temporaryDirectory.path
        try FreeSpace.require(local.packSize, at: base)
        var template = Array("\(base)/corpus-verify-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SyncError.io(operation: "create directory in", path: base, errno: errno) }
        let folder = String(cString: made)
        defer { FileIO.remove(folder) }
        let copy = "\(folder)/\(BundleLayout.pack)"
        do {
            try DeltaInstaller.copy(path, to: copy, expecting: local.packSHA256)
        } catch let e as SyncError where e.isVolumeFull {
            throw SyncError.insufficientSpace(path: base, needed: local.packSize, margin: FreeSpace.margin,
                                              available: (try? FreeSpace.available(at: base)) ?? 0)
        }
        try PackDigest.checkIndex(packAt: copy)
    }
}
