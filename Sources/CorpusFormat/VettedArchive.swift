import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A signed container (corpus bundle or embedder artifact) opened for reading: its raw central
/// directory checked by hand, its member table held to an allowlist, then its local headers and
/// layout (`ZipMemberLayout`) and the zip implementation's own checks (`ZipReader`), all reading the
/// same open file so it cannot be swapped in between. The two
/// readers differ only in their allowlist and manifest type; everything else lives here.
final class VettedArchive {
    let reader: ZipReader
    let positions: [String: Int]
    static let chunkSize = 1 << 20

    /// Opens `path` and validates its member table against `allowed`.
    init(path: String, allowed: [String], signature: String, implementation: ZipImplementation) throws {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        let directory: ZipCentralDirectory
        let positions: [String: Int]
        do {
            directory = try ZipCentralDirectory.read(fd: fd, path: path)
            positions = try BundleMemberTable.validate(directory.entries, allowed: allowed, signature: signature)
        } catch {
            close(fd)
            throw error
        }
        // From here the reader owns the descriptor (and closes it when opening fails).
        reader = try ZipReader(adopting: fd, path: path, directory: directory, implementation: implementation)
        self.positions = positions
    }

    /// Opens the archive `source` holds (the plaintext of an encrypted payload, never written to
    /// a file) with the zlib reader, after the same checks as a file; `path` names it in errors.
    init(source: any ZipByteSource, path: String, allowed: [String], signature: String) throws {
        let directory = try ZipCentralDirectory.read(source: source, path: path)
        positions = try BundleMemberTable.validate(directory.entries, allowed: allowed, signature: signature)
        reader = try ZipReader(source: source, path: path, directory: directory)
    }

    /// Reads a small signed document and its minisign signature and verifies them with the
    /// trusted key whose key id the signature names. Absent, unparsable and wrong signatures are
    /// three different refusals.
    func signedDocument(_ name: String, signature signatureName: String, trustedKeys: [PublicKey],
                        maxBytes: Int64, maxSignatureBytes: Int64) throws -> (bytes: Data, signature: Signature) {
        let bytes = try readSmall(name, limit: maxBytes)
        let signatureBytes = try readSmall(signatureName, limit: maxSignatureBytes)
        return (bytes, try Self.verifySignature(signatureBytes, of: bytes, name: name, signatureName: signatureName, trustedKeys: trustedKeys))
    }

    /// Verifies the minisign signature `signatureBytes` of the document `bytes` (member `name`) with
    /// the trusted key it names; the signature of a document that travels inside another container
    /// (the manifest a delta carries) is checked here too.
    static func verifySignature(_ signatureBytes: Data, of bytes: Data, name: String, signatureName: String,
                                trustedKeys: [PublicKey]) throws -> Signature {
        guard !signatureBytes.isEmpty else { throw FormatError.signatureMissing(file: signatureName) }
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
        return signature
    }

    /// Streams one member through SHA-256 into `sink` (see `ZipReader.streamVerified`).
    func stream(_ name: String, declared: MemberInfo,
                progress: ((BundleProgress) -> Void)?, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        try reader.streamVerified(at: positions[name]!, name: name, declared: declared, chunkSize: Self.chunkSize,
                                   progress: progress, sink: sink)
    }

    /// Extracts the verified document, its signature and the payload members into `directory`
    /// (see `ZipReader.extractVerified`).
    func extract(to directory: String, document: (name: String, bytes: Data), signature: (name: String, text: String),
                 payload: [(name: String, declared: MemberInfo)], progress: ((BundleProgress) -> Void)?) throws {
        try reader.extractVerified(to: directory, manifest: document, signature: signature,
                                    payload: payload.map { ($0.name, positions[$0.name]!, $0.declared) },
                                    chunkSize: Self.chunkSize, progress: progress)
    }

    /// Writes the verified document, its signature and the payload members into `directory`, an
    /// empty folder the caller owns (see `ZipReader.writeVerified`).
    func write(into directory: String, document: (name: String, bytes: Data), signature: (name: String, text: String),
               payload: [(name: String, declared: MemberInfo)], progress: ((BundleProgress) -> Void)?) throws {
        try reader.writeVerified(into: directory, manifest: document, signature: signature,
                                 payload: payload.map { ($0.name, positions[$0.name]!, $0.declared) },
                                 chunkSize: Self.chunkSize, progress: progress)
    }

    private func readSmall(_ name: String, limit: Int64) throws -> Data {
        try reader.readSmall(at: positions[name]!, name: name, limit: limit)
    }
}

@available(*, unavailable) extension VettedArchive: Sendable {}
