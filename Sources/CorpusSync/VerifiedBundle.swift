import CorpusFormat
import Foundation

/// A bundle file opened once, its signed manifest verified once (`VerifiedManifest`, which only
/// the bundle reader makes), with the file's SHA-256 and size when the caller already knows them
/// (a `VerifiedDownload` was hashed as it arrived). The installer takes this instead of a path,
/// so nothing on the way verifies the signature again or recovers the hash from a file name.
///
/// Holds the open reader: not `Sendable`, used by one install.
public struct VerifiedBundle {
    let reader: BundleReader
    public let verified: VerifiedManifest
    /// The keys it was verified with: the installer reuses a version folder already in place only
    /// if that folder verifies with these same keys.
    public let trustedKeys: [PublicKey]
    /// SHA-256 and size of the bundle file, nil when it was not hashed yet (a file to import).
    let file: (sha256: SHA256Digest, size: Int64)?

    public var manifest: Manifest { verified.manifest }
    public var path: String { reader.path }

    /// Opens `path` and verifies its manifest with the trusted key its signature names.
    public static func open(_ path: String, trustedKeys: [PublicKey]) throws -> VerifiedBundle {
        try open(path, trustedKeys: trustedKeys, file: nil)
    }

    /// Opens a verified download: its hash and size are the ones it was verified against.
    /// An encrypted one is read through its payload, decrypted chunk by chunk as it is read.
    public static func open(_ download: VerifiedDownload, trustedKeys: [PublicKey]) throws -> VerifiedBundle {
        guard let payload = download.payload else {
            return try open(download.path, trustedKeys: trustedKeys, file: (download.digest, download.size))
        }
        do {
            return try open(BundleReader(payload: AgePayloadReader(path: download.path, fileKey: payload.key)),
                            trustedKeys: trustedKeys, file: (download.digest, download.size))
        } catch let e as AgeError {
            throw SyncError.decryption(file: download.path, cause: e)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    private static func open(_ path: String, trustedKeys: [PublicKey], file: (SHA256Digest, Int64)?) throws -> VerifiedBundle {
        do {
            return try open(BundleReader(path: path), trustedKeys: trustedKeys, file: file)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    private static func open(_ reader: BundleReader, trustedKeys: [PublicKey], file: (SHA256Digest, Int64)?) throws -> VerifiedBundle {
        do {
            return VerifiedBundle(reader: reader, verified: try reader.manifest(trustedKeys: trustedKeys), trustedKeys: trustedKeys, file: file)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    /// The file's SHA-256 and size for the install record: as known, or hashed now (once).
    func hashed() throws -> (sha256: SHA256Digest, size: Int64) {
        if let file { return file }
        let (digest, size) = try io { try SHA256.digest(fileAt: path) }
        return (digest, size)
    }
}

@available(*, unavailable) extension VerifiedBundle: Sendable {}
