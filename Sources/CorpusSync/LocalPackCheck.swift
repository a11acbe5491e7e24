import CorpusEngine
import CorpusFormat
import Foundation

/// What `corpus verify` checks for a version whose pack is this client's own file rather than the
/// bundle's (built from a delta, docs/client.md "Updates by delta", or indexed at install): the file's size and
/// SHA-256 as recorded when it was built (any flipped byte), then its rows digest and content
/// digest against the signed manifest (what it holds is what was signed), and FTS5's own
/// integrity check of the index against the rows. The vector file is the bundle's byte for byte
/// and is checked against the manifest as for any install.
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
            try PackDigest.checkIndex(packAt: path)
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
}
