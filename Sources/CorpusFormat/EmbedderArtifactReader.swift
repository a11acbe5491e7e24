import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// Reads and verifies an embedder artifact (`.embedder.zip`, docs/format.md "Embedder artifact").
///
/// The same checks as `BundleReader`, with the artifact's allowlist: the raw central directory
/// and libzip's consistency check on opening; the signed `embedder.json` verified against a
/// trusted key; every model file streamed through SHA-256, stopped one byte past its signed size
/// and read to its end for the CRC; nothing moved into place until every file verified.
public final class EmbedderArtifactReader {
    public let path: String
    private let archive: ZipArchive
    private let positions: [String: Int]
    private static let chunkSize = 1 << 20

    /// What `manifest(trustedKeys:)` verified: the manifest, its exact bytes, their digest, the signature.
    public struct Verified: Sendable {
        public var manifest: EmbedderManifest
        public var bytes: Data
        /// The model digest: SHA-256 of `bytes`, as corpus manifests name it.
        public var digest: String
        public var signature: Signature
    }

    public init(path: String) throws {
        self.path = path
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        var opened: ZipArchive?
        do {
            let directory = try ZipCentralDirectory.read(fd: fd, path: path)
            let positions = try BundleMemberTable.validate(directory.entries, allowed: EmbedderArtifactLayout.allMembers,
                                                           signature: EmbedderArtifactLayout.signature)
            let zip = try ZipArchive(fd: fd, path: path, flags: ZIP_RDONLY | ZIP_CHECKCONS)
            opened = zip
            guard zip.entryCount == directory.entries.count else {
                throw FormatError.archiveInconsistent(reason: "libzip sees \(zip.entryCount) members, the central directory holds \(directory.entries.count)")
            }
            for (name, index) in positions where zip.rawName(at: index) != Array(name.utf8) {
                throw FormatError.archiveInconsistent(reason: "member \(index) is not named \(name) when libzip reads it")
            }
            self.positions = positions
            self.archive = zip
        } catch {
            if opened == nil { close(fd) }
            throw error
        }
    }

    /// Reads `embedder.json` and its signature and verifies them with the trusted key the signature names.
    public func manifest(trustedKeys: [PublicKey]) throws -> Verified {
        let name = EmbedderArtifactLayout.manifest
        let bytes = try readSmallMember(name, limit: BundleReader.maxManifestBytes)
        let signatureBytes = try readSmallMember(EmbedderArtifactLayout.signature, limit: BundleReader.maxSignatureBytes)
        guard !signatureBytes.isEmpty else { throw FormatError.signatureMissing(file: EmbedderArtifactLayout.signature) }
        guard let text = String(data: signatureBytes, encoding: .utf8), let signature = try? Signature(text: text) else {
            throw FormatError.signatureInvalid(what: "\(name) (its signature is not a minisign signature)")
        }
        guard let key = trustedKeys.first(where: { $0.keyID == signature.keyID }) else {
            throw FormatError.untrustedKey(keyID: signature.keyID.description)
        }
        do {
            try key.verify(signature, message: bytes)
        } catch FormatError.signatureInvalid(let what) {
            throw FormatError.signatureInvalid(what: what == "the trusted comment" ? "the trusted comment of \(name)" : name)
        }
        let manifest = try EmbedderManifest.decode(bytes)
        return Verified(manifest: manifest, bytes: bytes, digest: EmbedderManifest.digest(of: bytes), signature: signature)
    }

    /// Checks every model file against the signed manifest without writing anything.
    @discardableResult
    public func verifyAll(trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Verified {
        let verified = try manifest(trustedKeys: trustedKeys)
        for name in EmbedderArtifactLayout.payloadMembers {
            try stream(name, declared: verified.manifest.files[name]!, progress: progress) { _ in }
        }
        return verified
    }

    /// Verifies the artifact and extracts it into `directory`, which must not exist yet: members go
    /// to a staging folder beside it, each hashed as written and fsynced, and the folder is renamed
    /// to `directory` only when all verified. On failure the parent folder is left as it was.
    @discardableResult
    public func extract(to directory: String, trustedKeys: [PublicKey], progress: ((BundleProgress) -> Void)? = nil) throws -> Verified {
        let verified = try manifest(trustedKeys: trustedKeys)
        try archive.extractVerified(
            to: directory, manifest: (EmbedderArtifactLayout.manifest, verified.bytes),
            signature: (EmbedderArtifactLayout.signature, verified.signature.fileText),
            payload: EmbedderArtifactLayout.payloadMembers.map { ($0, positions[$0]!, verified.manifest.files[$0]!) },
            chunkSize: Self.chunkSize, progress: progress)
        return verified
    }

    /// Streams one member through SHA-256 into `sink` (see `ZipArchive.streamVerified`).
    private func stream(_ name: String, declared: MemberInfo,
                        progress: ((BundleProgress) -> Void)?, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        try archive.streamVerified(at: positions[name]!, name: name, declared: declared, chunkSize: Self.chunkSize,
                                   progress: progress, sink: sink)
    }

    private func readSmallMember(_ name: String, limit: Int64) throws -> Data {
        try archive.readSmall(at: positions[name]!, name: name, limit: limit)
    }
}

@available(*, unavailable) extension EmbedderArtifactReader: Sendable {}
