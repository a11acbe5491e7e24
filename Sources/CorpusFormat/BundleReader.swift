import Foundation

/// How far a bundle verification or extraction has got, for progress bars.
public struct BundleProgress: Sendable, Equatable {
    /// The member being read.
    public var member: String
    /// Bytes of this member hashed (and, when extracting, written) so far.
    public var bytesDone: Int64
    /// The member's size as the signed manifest declares it.
    public var bytesTotal: Int64
}

/// Reads and verifies a corpus bundle (docs/format.md "Corpus bundle").
///
/// Opening checks the member table: exactly the allowlisted names, each once, regular files,
/// no unsafe names, a consistent archive (libzip `ZIP_CHECKCONS`) with nothing after its end.
/// `manifest(trustedKeys:)` verifies the signed manifest; `extract` and `verifyAll` then stream
/// every member through SHA-256, stopping one byte past its signed size, and read it to its end
/// so libzip checks the CRC. Extraction moves nothing into place until every member verified.
public final class BundleReader {
    public let path: String
    private let vetted: VettedArchive

    /// The manifest is small; anything larger is refused before it is parsed.
    public static let maxManifestBytes: Int64 = 1 << 20
    public static let maxSignatureBytes: Int64 = 16 << 10

    /// Opens `path` and validates its member table.
    public init(path: String) throws {
        self.path = path
        vetted = try VettedArchive(path: path, allowed: BundleLayout.allMembers, signature: BundleLayout.signature)
    }

    /// Reads `corpus.json` and its signature and verifies them with the trusted key whose key id
    /// the signature names.
    public func manifest(trustedKeys: [PublicKey]) throws -> (manifest: Manifest, bytes: Data, signature: Signature) {
        let (bytes, signature) = try vetted.signedDocument(BundleLayout.manifest, signature: BundleLayout.signature, trustedKeys: trustedKeys,
                                                           maxBytes: Self.maxManifestBytes, maxSignatureBytes: Self.maxSignatureBytes)
        let manifest = try Manifest.decode(bytes)
        for name in BundleLayout.payloadMembers where manifest.members[name] == nil {
            throw FormatError.malformed(what: "corpus manifest", reason: "it does not list \(name)")
        }
        return (manifest, bytes, signature)
    }

    /// Checks every member against the signed manifest without writing anything (`corpus verify`).
    @discardableResult
    public func verifyAll(trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Manifest {
        let (manifest, _, _) = try manifest(trustedKeys: trustedKeys)
        for name in BundleLayout.payloadMembers {
            try vetted.stream(name, declared: manifest.members[name]!, progress: progress) { _ in }
        }
        return manifest
    }

    /// Verifies the bundle and extracts it into `directory`, which must not exist yet.
    ///
    /// Members are written into a staging folder beside `directory` (same volume), each one
    /// hashed as it is written, fsynced, and the folder is renamed to `directory` only when every
    /// member verified. On any failure the staging folder is removed, so the parent folder is
    /// left exactly as it was.
    @discardableResult
    public func extract(to directory: String, trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Manifest {
        let (manifest, manifestBytes, signature) = try manifest(trustedKeys: trustedKeys)
        try vetted.extract(to: directory, document: (BundleLayout.manifest, manifestBytes),
                           signature: (BundleLayout.signature, signature.fileText),
                           payload: BundleLayout.payloadMembers.map { ($0, manifest.members[$0]!) }, progress: progress)
        return manifest
    }
}

@available(*, unavailable) extension BundleReader: Sendable {}
