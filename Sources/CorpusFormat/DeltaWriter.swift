// libzip writes (and, on Linux, can read) archives; an app on an Apple platform cannot link it (docs/apple.md).
#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// Writes signed deltas (`.delta.zip`, docs/format.md "Delta"), with the bundle writer's rules:
/// members in `DeltaLayout.allMembers` order, fixed times and modes, a signature without a
/// timestamp, so the same inputs and key give the same bytes.
public enum DeltaWriter {
    /// The members are small next to a bundle and are downloaded by every client that updates, so
    /// they are compressed for size (zlib's highest level).
    static let level: UInt32 = 9

    /// Hashes the payload, records it in `document`, signs it, and writes the delta atomically
    /// to `outPath`. `manifest` and `manifestSignature` are the new version's, as its bundle
    /// holds them; `vectorsPath` is a vector file of the added rows.
    /// - Returns: the document as signed.
    @discardableResult
    public static func write(document: DeltaDocument, manifest: Data, manifestSignature: String, changes: Data,
                             vectorsPath: String, key: SecretKey, to outPath: String) throws -> DeltaDocument {
        var document = document
        let signatureBytes = Data(manifestSignature.utf8)
        let vectors = try SHA256.hash(fileAt: vectorsPath)
        document.members = [
            DeltaLayout.manifest: MemberInfo(sha256: SHA256.digest(manifest), size: Int64(manifest.count)),
            DeltaLayout.manifestSignature: MemberInfo(sha256: SHA256.digest(signatureBytes), size: Int64(signatureBytes.count)),
            DeltaLayout.changes: MemberInfo(sha256: SHA256.digest(changes), size: Int64(changes.count)),
            DeltaLayout.vectors: MemberInfo(sha256: SHA256Digest(bytes: vectors.digest), size: vectors.size),
        ]
        let bytes = try document.canonicalBytes()
        _ = try DeltaDocument.decode(bytes)
        let signature = try key.sign(bytes, trustedComment: document.trustedComment)

        let tmp = FileIO.temporarySibling(of: outPath)
        var committed = false
        defer { if !committed { unlink(tmp) } }
        let zip = try ZipArchive(path: tmp, flags: ZIP_CREATE | ZIP_EXCL)
        for name in DeltaLayout.allMembers {
            switch name {
            case DeltaLayout.document: try zip.add(name: name, bytes: bytes, compression: .deflated, level: level)
            case DeltaLayout.signature: try zip.add(name: name, bytes: Data(signature.fileText.utf8), compression: .stored)
            case DeltaLayout.manifest: try zip.add(name: name, bytes: manifest, compression: .deflated, level: level)
            case DeltaLayout.manifestSignature: try zip.add(name: name, bytes: signatureBytes, compression: .stored)
            case DeltaLayout.changes: try zip.add(name: name, bytes: changes, compression: .deflated, level: level)
            case DeltaLayout.vectors:
                try zip.add(name: name, fileAt: vectorsPath, length: vectors.size, compression: .deflated, level: level)
            default: preconditionFailure("DeltaLayout.allMembers names \(name), which the writer does not know")
            }
        }
        try zip.close()
        try FileIO.commit(tmp, to: outPath)
        committed = true
        return document
    }
}
#endif
