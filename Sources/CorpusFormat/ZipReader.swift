import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// A zip archive opened read-only from a file that is already open, the one zip reader of the
/// package: the bundle and embedder-artifact readers (`VettedArchive`) and the publisher's EPUB
/// ingest read through it.
///
/// Opened with `ZIP_RDONLY | ZIP_CHECKCONS` (`zip_fdopen`), which compares every local header with
/// its central directory entry. Opening from a descriptor means the file checked (or opened
/// without following links) is the file read. Every read is capped: a member is read to at most
/// its limit whatever its header claims, so a zip bomb costs at most the cap, and a member read to
/// its end has its CRC and size checked by libzip. The handle is owned by a `ZipArchive`.
public final class ZipReader {
    let archive: ZipArchive

    /// Takes over `fd` (libzip closes it with the archive); on failure `fd` is closed here.
    init(adopting fd: Int32, path: String) throws {
        do {
            archive = try ZipArchive(fd: fd, path: path, flags: ZIP_RDONLY | ZIP_CHECKCONS)
        } catch {
            // zip_fdopen takes the descriptor only on success.
            close(fd)
            throw error
        }
    }

    /// Opens the archive in the open file `descriptor`, which the caller keeps (a duplicate goes to
    /// libzip). `path` names the file in errors.
    /// - Throws: `FormatError`: `.io` when the descriptor cannot be duplicated or read,
    ///   `.archiveInconsistent` when the file is not a consistent zip archive.
    public convenience init(duplicating descriptor: Int32, path: String) throws {
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw FormatError.io(operation: "duplicate descriptor", path: path, errno: errno) }
        try self.init(adopting: fd, path: path)
    }

    /// Reads the member called `name`, refusing it when it holds more than `limit` bytes.
    ///
    /// Members are looked up by plain relative names only: nothing here touches the file system,
    /// but a name like `../x` or `/x` is a sign of a crafted archive and is refused rather than
    /// looked up (`FormatError.unsafeMemberName`).
    /// - Throws: `FormatError`: `.unsafeMemberName`, `.missingMember`, `.sizeExceeded`, or
    ///   `.archiveInconsistent` / `.io` for a member that does not read (a CRC mismatch, say).
    public func read(_ name: String, limit: Int) throws -> [UInt8] {
        guard Self.isPlainName(name) else { throw FormatError.unsafeMemberName(name) }
        let index = zip_name_locate(archive.pointer, name, 0)
        guard index >= 0 else { throw FormatError.missingMember(name) }
        return [UInt8](try readSmall(at: Int(index), name: name, limit: Int64(limit)))
    }

    /// A name made only of plain segments: not absolute, no empty, `.` or `..` segment, no
    /// backslash or control character.
    static func isPlainName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") }) else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}

@available(*, unavailable) extension ZipReader: Sendable {}
