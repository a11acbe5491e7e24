import Foundation
internal import CZip

/// A zip archive opened read-only with libzip (`zip_fdopen` with `ZIP_RDONLY | ZIP_CHECKCONS`),
/// closed with `zip_discard` in `deinit`. Used to read EPUBs.
///
/// Reads are capped: a member is read to at most `limit` bytes whatever its header claims,
/// so a zip bomb costs at most the cap. libzip checks each member's CRC when it is read to its end.
/// Members are looked up by plain relative names only: nothing here touches the file system, but a
/// name like `../x` or `/x` is a sign of a crafted archive and is refused rather than looked up.
final class ZipArchiveReader {
    private let archive: OpaquePointer

    struct Failure: Error { let reason: String }

    /// Opens the archive in an open file (`zip_fdopen` on a duplicate of `descriptor`, which the
    /// caller keeps).
    init(descriptor: Int32) throws(Failure) {
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw Failure(reason: "cannot read the file (\(String(cString: strerror(errno))))") }
        var code: Int32 = 0
        guard let za = zip_fdopen(fd, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            // zip_fdopen takes the descriptor only on success.
            close(fd)
            throw Self.openFailure(code)
        }
        archive = za
    }

    private static func openFailure(_ code: Int32) -> Failure {
        var err = zip_error_t()
        zip_error_init_with_code(&err, code)
        defer { zip_error_fini(&err) }
        return Failure(reason: "not a readable zip archive (\(String(cString: zip_error_strerror(&err))))")
    }

    deinit { zip_discard(archive) }

    /// A name made only of plain segments: not absolute, no empty, `.` or `..` segment, no
    /// backslash or control character.
    static func isPlainName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") }) else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// Member names in central-directory order.
    var names: [String] {
        let n = zip_get_num_entries(archive, 0)
        guard n > 0 else { return [] }
        return (0..<UInt64(n)).compactMap { i in zip_get_name(archive, i, ZIP_FL_ENC_GUESS).map { String(cString: $0) } }
    }

    func contains(_ name: String) -> Bool { zip_name_locate(archive, name, 0) >= 0 }

    /// Reads one member, refusing it when it holds more than `limit` bytes.
    func read(_ name: String, limit: Int) throws(Failure) -> [UInt8] {
        guard Self.isPlainName(name) else { throw Failure(reason: "member name \(name.debugDescription) is not a plain path inside the archive") }
        let index = zip_name_locate(archive, name, 0)
        guard index >= 0 else { throw Failure(reason: "member \(name) is missing") }
        guard let file = zip_fopen_index(archive, UInt64(index), 0) else {
            throw Failure(reason: "cannot open member \(name) (\(String(cString: zip_strerror(archive))))")
        }
        defer { zip_fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, UInt64($0.count)) }
            if n < 0 { throw Failure(reason: "member \(name) is damaged (\(String(cString: zip_file_strerror(file))))") }
            if n == 0 { break }
            out += chunk[0..<Int(n)]
            if out.count > limit { throw Failure(reason: "member \(name) is larger than \(limit) bytes") }
        }
        return out
    }
}

@available(*, unavailable) extension ZipArchiveReader: Sendable {}
