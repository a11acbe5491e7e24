import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

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
    private let archive: ZipArchive
    private let positions: [String: Int]

    /// The manifest is small; anything larger is refused before it is parsed.
    public static let maxManifestBytes: Int64 = 1 << 20
    public static let maxSignatureBytes: Int64 = 16 << 10
    private static let chunkSize = 1 << 20

    /// Opens `path` and validates its member table.
    public init(path: String) throws {
        self.path = path
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        // The raw pre-check and libzip read the same open file, so it cannot be swapped in between.
        var opened: ZipArchive?
        do {
            let directory = try ZipCentralDirectory.read(fd: fd, path: path)
            let positions = try BundleMemberTable.validate(directory.entries)
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
            // zip_fdopen takes the descriptor only on success; after that the archive closes it.
            if opened == nil { close(fd) }
            throw error
        }
    }

    /// Reads `corpus.json` and its signature and verifies them with the trusted key whose key id
    /// the signature names.
    public func manifest(trustedKeys: [PublicKey]) throws -> (manifest: Manifest, bytes: Data, signature: Signature) {
        let bytes = try readSmallMember(BundleLayout.manifest, limit: Self.maxManifestBytes)
        let signatureBytes = try readSmallMember(BundleLayout.signature, limit: Self.maxSignatureBytes)
        guard !signatureBytes.isEmpty else { throw FormatError.signatureMissing(file: BundleLayout.signature) }
        guard let text = String(data: signatureBytes, encoding: .utf8), let signature = try? Signature(text: text) else {
            throw FormatError.signatureInvalid(what: "\(BundleLayout.manifest) (its signature is not a minisign signature)")
        }
        guard let key = trustedKeys.first(where: { $0.keyID == signature.keyID }) else {
            throw FormatError.untrustedKey(keyID: signature.keyID.description)
        }
        do {
            try key.verify(signature, message: bytes)
        } catch FormatError.signatureInvalid(let what) {
            throw FormatError.signatureInvalid(what: what == "the trusted comment" ? "the trusted comment of \(BundleLayout.manifest)" : BundleLayout.manifest)
        }
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
            try stream(name, declared: manifest.members[name]!, progress: progress) { _ in }
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
        try archive.extractVerified(
            to: directory, manifest: (BundleLayout.manifest, manifestBytes), signature: (BundleLayout.signature, signature.fileText),
            payload: BundleLayout.payloadMembers.map { ($0, positions[$0]!, manifest.members[$0]!) },
            chunkSize: Self.chunkSize, progress: progress)
        return manifest
    }

    // MARK: Streaming

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

@available(*, unavailable) extension BundleReader: Sendable {}
