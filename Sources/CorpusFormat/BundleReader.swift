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

/// A bundle's signed manifest that verified against a trusted key: only `BundleReader` makes one
/// (its initialiser is internal to this module), so a value of this type is proof of the
/// verification, and what the installer hands on instead of verifying again.
public struct VerifiedManifest: Hashable, Sendable {
    public let manifest: Manifest
    /// The exact signed bytes of `corpus.json`.
    public let bytes: Data
    public let signature: Signature

    init(manifest: Manifest, bytes: Data, signature: Signature) {
        self.manifest = manifest
        self.bytes = bytes
        self.signature = signature
    }
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
    /// `implementation` is the zip reader (`ZipImplementation`); every caller but the tests and
    /// benchmarks that compare the two keeps the platform's.
    public init(path: String, implementation: ZipImplementation = .platformDefault) throws {
        self.path = path
        vetted = try VettedArchive(path: path, allowed: BundleLayout.allMembers, signature: BundleLayout.signature, implementation: implementation)
    }

    /// Opens the bundle whose plaintext the encrypted payload `payload` holds: every member is
    /// read through it, each 64 KiB chunk decrypted and authenticated as it is needed, so the
    /// plaintext bundle is never written to a file (`AgePayloadReader`).
    public init(payload: AgePayloadReader) throws {
        path = payload.path
        vetted = try VettedArchive(source: payload, path: payload.path, allowed: BundleLayout.allMembers, signature: BundleLayout.signature)
    }

    /// Reads `corpus.json` and its signature and verifies them with the trusted key whose key id
    /// the signature names: the one verification of a bundle's signature; what it returns is
    /// handed on (`extract(_:into:)`) rather than verified again.
    public func manifest(trustedKeys: [PublicKey]) throws -> VerifiedManifest {
        let (bytes, signature) = try vetted.signedDocument(BundleLayout.manifest, signature: BundleLayout.signature, trustedKeys: trustedKeys,
                                                           maxBytes: Self.maxManifestBytes, maxSignatureBytes: Self.maxSignatureBytes)
        let manifest = try Manifest.decode(bytes)
        for name in BundleLayout.payloadMembers where manifest.members[name] == nil {
            throw FormatError.malformed(what: "corpus manifest", reason: "it does not list \(name)")
        }
        return VerifiedManifest(manifest: manifest, bytes: bytes, signature: signature)
    }

    /// Checks every member against the signed manifest without writing anything (`corpus verify`).
    @discardableResult
    public func verifyAll(trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Manifest {
        let manifest = try manifest(trustedKeys: trustedKeys).manifest
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
        let verified = try manifest(trustedKeys: trustedKeys)
        try vetted.extract(to: directory, document: (BundleLayout.manifest, verified.bytes),
                           signature: (BundleLayout.signature, verified.signature.fileText),
                           payload: payload(of: verified.manifest), progress: progress)
        return verified.manifest
    }

    /// Writes the bundle whose manifest `verified` holds into `directory`, an empty folder the
    /// caller created and owns (an installer's one staging folder): the signed manifest and
    /// signature as verified, and every payload member hashed against them as it is written,
    /// each file fsynced. Nothing is renamed and the folder is not synced: the caller adds what it
    /// needs, syncs the folder once and moves it into place, and removes it if this throws.
    ///
    /// The signature is not verified again: `verified` is the proof. Every payload byte is checked
    /// against its signed hash, so a manifest verified from another reader of the same file
    /// installs exactly that signed content or is refused.
    public func extract(_ verified: VerifiedManifest, into directory: String, progress: ((BundleProgress) -> Void)? = nil) throws {
        try vetted.write(into: directory, document: (BundleLayout.manifest, verified.bytes),
                         signature: (BundleLayout.signature, verified.signature.fileText),
                         payload: payload(of: verified.manifest), progress: progress)
    }

    private func payload(of manifest: Manifest) -> [(name: String, declared: MemberInfo)] {
        BundleLayout.payloadMembers.map { ($0, manifest.members[$0]!) }
    }
}

@available(*, unavailable) extension BundleReader: Sendable {}
