// libzip writes (and, on Linux, can read) archives; an app on an Apple platform cannot link it (docs/apple.md).
#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// Writes signed embedder artifacts (`.embedder.zip`, docs/format.md "Embedder artifact") from a
/// model folder holding the files `EmbedderArtifactLayout.payloadMembers` names.
///
/// Deterministic like `BundleWriter`: members in layout order, fixed times and modes, a signature
/// without a timestamp. The weights are stored, not deflated: float32 weights barely compress,
/// and deflating 90 MB would add seconds to every publish for a few percent.
public enum EmbedderArtifactWriter {
    /// The signed manifest of a model folder, without writing anything: what `write` would sign.
    public static func manifest(modelDirectory: String, id: String, dimension: Int, encoder: EncoderSettings? = nil) throws -> (manifest: EmbedderManifest, bytes: Data, digest: SHA256Digest) {
        var files: [String: MemberInfo] = [:]
        for name in EmbedderArtifactLayout.payloadMembers {
            let (digest, size) = try SHA256.digest(fileAt: "\(modelDirectory)/\(name)")
            files[name] = MemberInfo(sha256: digest, size: size)
        }
        let manifest = EmbedderManifest(id: id, dimension: dimension, files: files, encoder: encoder)
        let bytes = try manifest.canonicalBytes()
        // Decoding what we are about to sign catches a manifest the reader would refuse.
        _ = try EmbedderManifest.decode(bytes)
        return (manifest, bytes, EmbedderManifest.digest(of: bytes))
    }

    /// Hashes the model files, signs the manifest and writes the artifact atomically to `outPath`.
    /// - Returns: the signed manifest and the model digest.
    @discardableResult
    public static func write(modelDirectory: String, id: String, dimension: Int, encoder: EncoderSettings? = nil, key: SecretKey,
                             to outPath: String) throws -> (manifest: EmbedderManifest, digest: SHA256Digest) {
        let (manifest, bytes, digest) = try self.manifest(modelDirectory: modelDirectory, id: id, dimension: dimension, encoder: encoder)
        let signature = try key.sign(bytes, trustedComment: manifest.trustedComment(digest: digest),
                                     untrustedComment: "embedder \(id) signed by key \(key.keyID)")

        let tmp = FileIO.temporarySibling(of: outPath)
        var committed = false
        defer { if !committed { unlink(tmp) } }
        do {
            let zip = try ZipArchive(path: tmp, flags: ZIP_CREATE | ZIP_EXCL)
            try zip.add(name: EmbedderArtifactLayout.manifest, bytes: bytes, compression: .deflated)
            try zip.add(name: EmbedderArtifactLayout.signature, bytes: Data(signature.fileText.utf8), compression: .stored)
            for name in EmbedderArtifactLayout.payloadMembers {
                try zip.add(name: name, fileAt: "\(modelDirectory)/\(name)", length: manifest.files[name]!.size,
                            compression: name == EmbedderArtifactLayout.weights ? .stored : .deflated)
            }
            try zip.close()
        }
        try FileIO.commit(tmp, to: outPath)
        committed = true
        return (manifest, digest)
    }
}
#endif
