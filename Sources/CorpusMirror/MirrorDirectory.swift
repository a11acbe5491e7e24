import Foundation
import CorpusFormat
import CorpusSync

/// The mirror's own folder: what it already serves, and the writes that update it.
///
/// Every file but the pointer is immutable once written (content-addressed bundles, numbered
/// catalogs and root keys), so existing ones are never rewritten: a server's ETags and caches
/// stay valid. The pointer `catalog.json` is replaced last, atomically.
struct MirrorDirectory: Sendable {
    let root: String

    /// Where downloads wait (resumable, hidden: neither `corpusd serve` nor nginx serve dotfiles)
    /// until the whole run verified. Same volume as the tree, so placing a bundle is a rename.
    var work: HomeLayout { HomeLayout(root: "\(root)/.mirror") }

    func path(_ relative: String) -> String { "\(root)/\(relative)" }

    /// The newest catalog the mirror holds (the rollback floor), even one a crashed run wrote
    /// before switching the pointer: its clients may have seen it. A version is held as a flat
    /// catalog, a top document or both (`PublishedTree.publishedVersions`); the flat one is read
    /// when there is one, else the top document. `path`: the file read, beside its signature.
    func newestCatalog() throws -> (catalog: Catalog, path: String)? {
        guard let version = PublishedTree(root: root).publishedVersions().last else { return nil }
        let flat = TreeLayout.catalogPath(version: version)
        let rel = FileIO.exists(path(flat)) ? flat : TreeLayout.topPath(version: version)
        guard let bytes = FileManager.default.contents(atPath: path(rel)) else {
            throw SyncError.io(operation: "read", path: path(rel), errno: EIO)
        }
        do {
            return (try Catalog.decode(bytes), rel)
        } catch let e as FormatError {
            throw SyncError.malformed(what: path(rel), reason: "the mirror's own catalog is unreadable (\(e)); move the folder aside and mirror afresh")
        }
    }

    /// The catalog version `catalog.json` names, if it names one.
    func pointerVersion() -> Int? {
        guard let data = FileManager.default.contents(atPath: path(TreeLayout.pointer)) else { return nil }
        return (try? JSONDecoder().decode(CatalogPointer.self, from: data))?.version
    }

    /// Refuses an upstream whose root chain disagrees with, or is shorter than, the one the mirror serves.
    func checkRoots(_ roots: [VerifiedRootDocument]) throws {
        var version = 1
        while let held = FileManager.default.contents(atPath: path(TreeLayout.rootKeyPath(version: version))) {
            guard version <= roots.count else {
                throw SyncError.catalogMismatch(reason: "the upstream's root key chain ends at version \(roots.count), this mirror already serves version \(version)")
            }
            guard held == roots[version - 1].json else {
                throw SyncError.catalogMismatch(reason: "the upstream's \(TreeLayout.rootKeyPath(version: version)) differs from the copy this mirror serves")
            }
            version += 1
        }
    }

    /// True when `ref`'s file is in place with the signed size and SHA-256.
    func holds(_ ref: BundleRef) -> Bool { ref.matches(fileAt: path(ref.path)) }

    /// Moves a verified download into place.
    func place(download: VerifiedDownload, as ref: BundleRef) throws {
        let dest = path(ref.path)
        let folder = (dest as NSString).deletingLastPathComponent
        try io { try FileIO.createDirectory(folder) }
        guard rename(download.path, dest) == 0 else { throw SyncError.io(operation: "rename", path: dest, errno: errno) }
        FileIO.remove(download.path + ".json")
        FileIO.syncDirectory(folder)
    }

    /// Writes `data` at `relative` unless an identical file is there, atomically.
    func write(_ data: Data, to relative: String) throws {
        let file = path(relative)
        if FileManager.default.contents(atPath: file) == data { return }
        try io {
            try FileIO.createDirectory((file as NSString).deletingLastPathComponent)
            try FileIO.writeAtomically(data, to: file)
        }
    }

    /// Writes an immutable file only when it is missing (never replaces a served one).
    func writeIfMissing(_ data: Data, to relative: String) throws {
        guard !FileIO.exists(path(relative)) else { return }
        try write(data, to: relative)
    }

    /// Removes bundles and embedder artifacts no unexpired catalog of the mirror references, as
    /// `corpusd publish` does (`PublishedTree.removeUnreferencedFiles`).
    func removeUnreferencedBundles(keep: Catalog, now: Date) -> [String] {
        PublishedTree(root: root).removeUnreferencedFiles(keep: keep, now: now)
    }

    /// Removes what a refused or finished run left in the work folder. Keeps resumable partials
    /// (and verified downloads) unless `everything`: after a network failure the next run resumes.
    func cleanWork(everything: Bool) {
        let work = self.work
        if everything {
            FileIO.remove(work.root)
            return
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: work.downloads)) ?? []
        if left.isEmpty { FileIO.remove(work.root) }
    }

    private func io<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as FormatError { throw SyncError.from(e, file: root) }
    }
}
