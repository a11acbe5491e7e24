import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A zip archive another program wrote (a reader app's corpus, a browser's export), opened to read
/// its members by name, never to unpack it onto a disk.
///
/// Before libzip opens the file its raw central directory is checked as a bundle's is
/// (`ZipCentralDirectory`: names byte for byte, nothing after the end record), with larger limits,
/// and every entry must be a plain file or folder: a name that is absolute, holds `..`, `.` or an
/// empty segment, a backslash or a control byte (the zip-slip names), a symbolic link, a name
/// twice or an encrypted member refuses the whole archive. An export that holds one such entry was
/// made by something other than the program it claims to come from. Then `ZipReader` checks the
/// local headers and opens the same descriptor, and members are read with caps (`read(_:limit:)`).
public final class ForeignArchive {
    /// The file members (folder entries left out), in the archive's order.
    public let names: [String]
    private let reader: ZipReader
    private let present: Set<String>

    /// - Throws: `FormatError`: `.unsafeMemberName`, `.symlinkMember`, `.duplicateMember`,
    ///   `.memberNotAllowed` (a device or other special entry), `.unsupported` (encrypted),
    ///   `.archiveInconsistent` (not a zip, or a damaged one), `.io`.
    public init(path: String, totalLimit: Int64 = defaultTotalLimit, implementation: ZipImplementation = .platformDefault) throws {
        self.totalLimit = totalLimit
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        let names: [String]
        let directory: ZipCentralDirectory
        do {
            directory = try ZipCentralDirectory.read(fd: fd, path: path, limits: .export)
            names = try Self.fileNames(directory)
        } catch {
            close(fd)
            throw error
        }
        reader = try ZipReader(adopting: fd, path: path, directory: directory, implementation: implementation)
        self.names = names
        present = Set(names)
    }

    /// True when the archive has a file member called `name`.
    public func contains(_ name: String) -> Bool { present.contains(name) }

    /// What all members read from one archive may add up to by default: an importer holds what
    /// it read, so a zip bomb of many small, highly compressed members is refused here, not by
    /// running out of memory.
    public static let defaultTotalLimit: Int64 = 4 << 30
    public let totalLimit: Int64
    /// The bytes read so far.
    public private(set) var bytesRead: Int64 = 0

    /// Reads the member `name` whole, refusing it past `limit` bytes, or when it takes what was
    /// read from the archive past `totalLimit` (`FormatError.sizeExceeded`, the member named `*`).
    public func read(_ name: String, limit: Int) throws -> [UInt8] {
        let left = totalLimit - bytesRead
        let capped = Int64(limit) > left
        let bytes: [UInt8]
        do {
            bytes = try reader.read(name, limit: Int(min(Int64(limit), left)))
        } catch FormatError.sizeExceeded where capped {
            throw FormatError.sizeExceeded(member: "*", limit: totalLimit)
        }
        bytesRead += Int64(bytes.count)
        return bytes
    }

    /// The names of the file members, after refusing any entry that is not a plain file or folder.
    static func fileNames(_ directory: ZipCentralDirectory) throws -> [String] {
        var seen = Set<[UInt8]>()
        var names: [String] = []
        for entry in directory.entries {
            let shown = String(decoding: entry.name, as: UTF8.self)
            let isFolder = entry.name.last == UInt8(ascii: "/")
            let plain = isFolder ? Array(entry.name.dropLast()) : entry.name
            guard let name = String(validating: plain, as: UTF8.self), ZipReader.isPlainName(name) else {
                throw FormatError.unsafeMemberName(shown)
            }
            if entry.hostSystem == 3 {
                let type = mode_t(entry.externalAttributes >> 16) & S_IFMT
                if type == S_IFLNK { throw FormatError.symlinkMember(shown) }
                guard type == 0 || type == S_IFREG || (isFolder && type == S_IFDIR) else { throw FormatError.memberNotAllowed(shown) }
            }
            guard seen.insert(plain).inserted else { throw FormatError.duplicateMember(shown) }
            guard entry.flags & 0x41 == 0 else { throw FormatError.unsupported(what: "member \(shown)", reason: "it is encrypted") }
            if !isFolder { names.append(shown) }
        }
        return names
    }
}

@available(*, unavailable) extension ForeignArchive: Sendable {}
