import Foundation
#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
internal import CZip
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A zip archive opened read-only from a file that is already open, the one zip reader of the
/// package: the bundle and embedder-artifact readers (`VettedArchive`), foreign archives and the
/// publisher's EPUB ingest read through it.
///
/// Every archive passes the same pre-check before either implementation sees it: the raw central
/// directory (`ZipCentralDirectory`) and every local header against it (`ZipMemberLayout`). Then
/// the implementation chosen (`ZipImplementation`, behind `ZipBackend`) reads it: libzip opened
/// with `ZIP_RDONLY | ZIP_CHECKCONS` (`zip_fdopen`), or zlib's inflate over the checked layout.
/// Callers do not know which. Opening from a descriptor means the file checked (or opened
/// without following links) is the file read. Every read is capped: a member is read to at most
/// its limit whatever its header claims, so a zip bomb costs at most the cap, and a member read to
/// its end has its CRC and size checked.
public final class ZipReader {
    let directory: ZipCentralDirectory
    let backend: any ZipBackend

    /// Takes over `fd` (closed with the reader, or here on failure) holding the archive whose
    /// central directory `directory` is.
    init(adopting fd: Int32, path: String, directory: ZipCentralDirectory, implementation: ZipImplementation) throws {
        self.directory = directory
        let file = DescriptorByteSource(fd: fd, path: path, owning: implementation == .zlib)
        let layout: ZipMemberLayout
        do {
            layout = try ZipMemberLayout.check(directory, source: file, path: path)
        } catch {
            if implementation != .zlib { close(fd) }
            throw error
        }
        switch implementation {
        case .zlib:
            backend = InflateZipArchive(source: file, path: path, directory: directory, layout: layout)
        #if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
        case .libzip:
            backend = try Self.openLibzip(adopting: fd, path: path, directory: directory)
        #endif
        }
    }

    /// Reads the archive that `source` holds (the plaintext of an encrypted payload) with the
    /// zlib reader after the same pre-check: libzip reads only from a descriptor here, and the
    /// point of a source is that no file holds these bytes.
    init(source: any ZipByteSource, path: String, directory: ZipCentralDirectory) throws {
        self.directory = directory
        let layout = try ZipMemberLayout.check(directory, source: source, path: path)
        backend = InflateZipArchive(source: source, path: path, directory: directory, layout: layout)
    }

    #if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
    /// libzip's side, which must see the members the pre-check saw, under the same names.
    private static func openLibzip(adopting fd: Int32, path: String, directory: ZipCentralDirectory) throws -> ZipArchive {
        let zip: ZipArchive
        do {
            zip = try ZipArchive(fd: fd, path: path, flags: ZIP_RDONLY | ZIP_CHECKCONS)
        } catch {
            // zip_fdopen takes the descriptor only on success.
            close(fd)
            throw error
        }
        guard zip.entryCount == directory.entries.count else {
            throw FormatError.archiveInconsistent(reason: "libzip sees \(zip.entryCount) members, the central directory holds \(directory.entries.count)")
        }
        for (index, entry) in directory.entries.enumerated() where zip.rawName(at: index) != entry.name {
            throw FormatError.archiveInconsistent(reason: "member \(index) is not named \(String(decoding: entry.name, as: UTF8.self)) when libzip reads it")
        }
        return zip
    }
    #endif

    /// Opens the archive in the open file `descriptor`, which the caller keeps (a duplicate is
    /// read). `path` names the file in errors.
    /// - Throws: `FormatError`: `.io` when the descriptor cannot be duplicated or read,
    ///   `.archiveInconsistent` when the file is not a consistent zip archive, `.unsupported` for
    ///   a member neither stored nor deflated, or encrypted, `.duplicateMember`.
    public convenience init(duplicating descriptor: Int32, path: String, implementation: ZipImplementation = .platformDefault) throws {
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw FormatError.io(operation: "duplicate descriptor", path: path, errno: errno) }
        let directory: ZipCentralDirectory
        do {
            directory = try ZipCentralDirectory.read(fd: fd, path: path, limits: .export)
        } catch {
            close(fd)
            throw error
        }
        try self.init(adopting: fd, path: path, directory: directory, implementation: implementation)
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
        let raw = Array(name.utf8)
        guard let index = directory.entries.firstIndex(where: { $0.name == raw }) else { throw FormatError.missingMember(name) }
        return [UInt8](try readSmall(at: index, name: name, limit: Int64(limit)))
    }

    /// A name made only of plain segments: not absolute, no empty, `.` or `..` segment, no
    /// backslash or control character.
    static func isPlainName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") }) else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}

@available(*, unavailable) extension ZipReader: Sendable {}
