import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension HomeLayout {
    /// `embedders/`: installed embedder models, shared by every corpus that names them.
    public var embedders: String { "\(root)/embedders" }
    /// `embedders/<id>/<digest>/`: one installed model (docs/layout.md). `id` must pass
    /// `EmbedderManifest.isValidID` before it gets here.
    public func embedderDirectory(id: String, digest: SHA256Digest) -> String { "\(embedders)/\(id)/\(digest.hex)" }
}

/// An embedder model as installed in `HOME/embedders/<id>/<digest>/`: the extracted artifact.
public enum InstalledEmbedder {
    /// Checks that `directory` holds the model with this digest: `embedder.json` hashes to
    /// `digest` and names `id`, and every model file it lists has its signed size.
    ///
    /// The files' hashes were checked when the artifact was installed; re-hashing 90 MB of
    /// weights on every open would cost more than the search, so only sizes are re-checked here
    /// (a truncated or replaced file is caught; `corpus verify` is the deep check).
    @discardableResult
    public static func check(directory: String, id: String, digest: SHA256Digest) throws -> EmbedderManifest {
        let path = "\(directory)/\(EmbedderArtifactLayout.manifest)"
        guard let size = FileIO.fileSize(path) else { throw FormatError.io(operation: "open", path: path, errno: ENOENT) }
        guard size <= BundleReader.maxManifestBytes else { throw FormatError.sizeExceeded(member: path, limit: BundleReader.maxManifestBytes) }
        guard let bytes = FileManager.default.contents(atPath: path) else { throw FormatError.io(operation: "read", path: path, errno: EIO) }
        let actual = EmbedderManifest.digest(of: bytes)
        guard actual == digest else {
            throw FormatError.hashMismatch(member: path, expected: digest.hex, actual: actual.hex)
        }
        let manifest = try EmbedderManifest.decode(bytes)
        guard manifest.id == id else {
            throw FormatError.malformed(what: path, reason: "it describes embedder \(manifest.id), not \(id)")
        }
        for (name, info) in manifest.files {
            let file = "\(directory)/\(name)"
            guard let s = FileIO.fileSize(file) else { throw FormatError.io(operation: "open", path: file, errno: ENOENT) }
            guard s == info.size else { throw FormatError.sizeMismatch(member: file, expected: info.size, actual: s) }
        }
        return manifest
    }

    /// Re-hashes every model file against `embedder.json` (`corpus verify`).
    public static func verifyAll(directory: String, id: String, digest: SHA256Digest) throws {
        let manifest = try check(directory: directory, id: id, digest: digest)
        for (name, info) in manifest.files.sorted(by: { $0.key < $1.key }) {
            let hash = try SHA256.digest(fileAt: "\(directory)/\(name)").digest
            guard hash == info.sha256 else {
                throw FormatError.hashMismatch(member: "\(directory)/\(name)", expected: info.sha256.hex, actual: hash.hex)
            }
        }
    }

    /// Every installed (id, digest) pair, sorted; names that are not a valid id or digest are skipped.
    public static func list(home: HomeLayout) -> [(id: String, digest: SHA256Digest)] {
        let fm = FileManager.default
        var out: [(String, SHA256Digest)] = []
        for id in ((try? fm.contentsOfDirectory(atPath: home.embedders)) ?? []).sorted() where EmbedderManifest.isValidID(id) {
            for name in ((try? fm.contentsOfDirectory(atPath: "\(home.embedders)/\(id)")) ?? []).sorted() {
                if let digest = SHA256Digest(hex: name) { out.append((id, digest)) }
            }
        }
        return out
    }
}
