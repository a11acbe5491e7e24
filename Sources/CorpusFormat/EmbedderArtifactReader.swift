import Foundation

/// Reads and verifies an embedder artifact (`.embedder.zip`, docs/format.md "Embedder artifact").
///
/// The same checks as `BundleReader`, with the artifact's allowlist: the raw central directory
/// and libzip's consistency check on opening; the signed `embedder.json` verified against a
/// trusted key; every model file streamed through SHA-256, stopped one byte past its signed size
/// and read to its end for the CRC; nothing moved into place until every file verified.
public final class EmbedderArtifactReader {
    public let path: String
    private let vetted: VettedArchive

    /// What `manifest(trustedKeys:)` verified: the manifest, its exact bytes, their digest, the signature.
    public struct Verified: Sendable {
        public var manifest: EmbedderManifest
        public var bytes: Data
        /// The model digest: SHA-256 of `bytes`, as corpus manifests name it.
        public var digest: SHA256Digest
        public var signature: Signature
    }

    /// `implementation` is the zip reader (`ZipImplementation`); every caller but the tests and
    /// benchmarks that compare the two keeps the platform's.
    public init(path: String, implementation: ZipImplementation = .platformDefault) throws {
        self.path = path
        vetted = try VettedArchive(path: path, allowed: EmbedderArtifactLayout.allMembers, signature: EmbedderArtifactLayout.signature, implementation: implementation)
    }

    /// Reads `embedder.json` and its signature and verifies them with the trusted key the signature names.
    public func manifest(trustedKeys: [PublicKey]) throws -> Verified {
        let (bytes, signature) = try vetted.signedDocument(EmbedderArtifactLayout.manifest, signature: EmbedderArtifactLayout.signature,
                                                           trustedKeys: trustedKeys, maxBytes: BundleReader.maxManifestBytes,
                                                           maxSignatureBytes: BundleReader.maxSignatureBytes)
        let manifest = try EmbedderManifest.decode(bytes)
        return Verified(manifest: manifest, bytes: bytes, digest: EmbedderManifest.digest(of: bytes), signature: signature)
    }

    /// Checks every model file against the signed manifest without writing anything.
    @discardableResult
    public func verifyAll(trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Verified {
        let verified = try manifest(trustedKeys: trustedKeys)
        for name in EmbedderArtifactLayout.payloadMembers {
            try vetted.stream(name, declared: verified.manifest.files[name]!, progress: progress) { _ in }
        }
        return verified
    }

    /// Verifies the artifact and extracts it into `directory`, which must not exist yet: members go
    /// to a staging folder beside it, each hashed as written and fsynced, and the folder is renamed
    /// to `directory` only when all verified. On failure the parent folder is left as it was.
    @discardableResult
    public func extract(to directory: String, trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Verified {
        let verified = try manifest(trustedKeys: trustedKeys)
        try extract(verified, to: directory, progress: progress)
        return verified
    }

    /// `extract(to:trustedKeys:)` for a manifest already verified (`Verified` is only made by
    /// `manifest(trustedKeys:)`): the signature is not checked again, every model file is.
    public func extract(_ verified: Verified, to directory: String, progress: ((BundleProgress) -> Void)? = nil) throws {
        try vetted.extract(to: directory, document: (EmbedderArtifactLayout.manifest, verified.bytes),
                           signature: (EmbedderArtifactLayout.signature, verified.signature.fileText),
                           payload: EmbedderArtifactLayout.payloadMembers.map { ($0, verified.manifest.files[$0]!) }, progress: progress)
    }
}

@available(*, unavailable) extension EmbedderArtifactReader: Sendable {}
