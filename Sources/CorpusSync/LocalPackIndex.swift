import CorpusEngine
import CorpusFormat
import Foundation

/// The install step of a bundle whose pack ships without its full-text index: build it in the
/// staging folder (`PackIndexer`) and record the pack file this client then holds, which
/// `corpus verify` checks (LocalPackCheck.swift).
enum LocalPackIndex {
    /// Nil when the pack holds its index (nothing to do).
    static func buildIfNeeded(folder: String, manifest: Manifest, remote: String) throws -> InstallRecord.LocalPack? {
        guard manifest.index == .install else { return nil }
        let pack = "\(folder)/\(BundleLayout.pack)"
        do {
            try PackIndexer.build(packAt: pack)
        } catch let e as SQLiteError where e.isOutOfSpace {
            // A full volume (or a quota, a file-size limit) is the home's problem, not the pack's.
            throw SyncError.io(operation: "build the full-text index in", path: pack, errno: e.code == .full ? ENOSPC : e.systemErrno)
        } catch let e as SQLiteError {
            let name = "\(remote)/\(manifest.id)"
            throw SyncError.unsafePack(corpus: name, cause: .sqlite(corpus: name, e))
        }
        LifecycleStep.reached("pack-indexed")
        let (digest, size) = try io { try SHA256.digest(fileAt: pack) }
        return InstallRecord.LocalPack(delta: nil, packSHA256: digest.hex, packSize: size)
    }
}
