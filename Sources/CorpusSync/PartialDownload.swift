import CorpusFormat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a partial download came from, so a resume can send `If-Range` to the same URL.
struct PartialMeta: Codable, Equatable {
    var url: String
    var etag: String?
    var lastModified: String?

    enum CodingKeys: String, CodingKey {
        case url, etag
        case lastModified = "last_modified"
    }

    /// `If-Range` needs a strong validator (RFC 9110 §13.1.5): a strong ETag, else Last-Modified.
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}

/// Sees every byte of a partial download in order from its first, whatever the attempt: the
/// bytes already on disk when an attempt opens the partial, then each one appended, and a
/// `restart` whenever the partial is emptied. What it computes is of the whole file once the
/// download verified. `PayloadPlaintextCheck` checks an encrypted payload's plaintext so.
protocol DownloadTap: AnyObject, Sendable {
    /// The partial is about to be read from its first byte, or was emptied: forget what was seen.
    func restart()
    /// The partial's next bytes.
    func update(_ bytes: UnsafeRawBufferPointer)
}

/// `downloads/<sha256>.part` open for appending, hashed as it grows.
///
/// Opening hashes the bytes already there, so a resumed download ends with the digest of the
/// whole file without reading it twice; a `tap` sees the same bytes.
final class PartialDownload {
    let path: String
    let metaPath: String
    /// Owns the descriptor, open for reading and writing (closed with the reader); read to the
    /// end once, which leaves the offset where appends go.
    private let file: FileHandleReader
    private var fd: Int32 { file.descriptor }
    private var digest = Digest(.sha256)
    private(set) var size: Int64 = 0
    private let tap: (any DownloadTap)?

    init(path: String, metaPath: String, tap: (any DownloadTap)? = nil) throws {
        self.path = path
        self.metaPath = metaPath
        self.tap = tap
        let fd = SystemCall.retrying { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw SyncError.io(operation: "open", path: path, errno: errno) }
        file = FileHandleReader(adopting: fd, path: path)
        tap?.restart()
        do {
            try file.forEachChunk { chunk in
                digest.update(chunk)
                tap?.update(chunk)
                size += Int64(chunk.count)
            }
        } catch let e as FormatError { throw SyncError.from(e) }
    }

    /// Empties the file and the digest (the server sent the whole file, or the partial is unusable).
    func restart() throws {
        guard ftruncate(fd, 0) == 0 else { throw SyncError.io(operation: "truncate", path: path, errno: errno) }
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw SyncError.io(operation: "seek", path: path, errno: errno) }
        digest = Digest(.sha256)
        tap?.restart()
        size = 0
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        do { try FileIO.writeAll(fd, bytes, path: path) } catch let e as FormatError { throw SyncError.from(e) }
        digest.update(bytes)
        tap?.update(bytes)
        size += Int64(bytes.count)
    }

    /// Returns the SHA-256 of everything written; the object is done afterwards.
    ///
    /// No fsync: a partial is never trusted after a crash (reopening re-hashes it and the signed
    /// hash decides), the installer fsyncs what it extracts, and the file is deleted right after
    /// the install. Forcing a 1 GiB bundle to disk here cost most of a second per install.
    func finish() throws -> SHA256Digest {
        SHA256Digest(bytes: digest.finalize())
    }

    func saveMeta(_ meta: PartialMeta) throws {
        do { try FileIO.writeAtomically(try CanonicalJSON.encode(meta), to: metaPath) } catch let e as FormatError { throw SyncError.from(e) }
    }

    static func loadMeta(_ path: String) -> PartialMeta? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(PartialMeta.self, from: $0) }
    }

    /// Removes the partial and its metadata.
    static func discard(path: String, metaPath: String) {
        unlink(path)
        unlink(metaPath)
    }
}

@available(*, unavailable)
extension PartialDownload: Sendable {}
