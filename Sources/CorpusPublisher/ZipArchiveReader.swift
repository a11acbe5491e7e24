internal import CZip

/// A zip archive opened read-only with libzip (`zip_open` with `ZIP_RDONLY | ZIP_CHECKCONS`),
/// closed with `zip_discard` in `deinit`. Used to read EPUBs and prebuilt bundles' manifests.
///
/// Reads are capped: a member is read to at most `limit` bytes whatever its header claims,
/// so a zip bomb costs at most the cap. libzip checks each member's CRC when it is read to its end.
final class ZipArchiveReader {
    private let archive: OpaquePointer

    struct Failure: Error { let reason: String }

    init(path: String) throws(Failure) {
        var code: Int32 = 0
        guard let za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            var err = zip_error_t()
            zip_error_init_with_code(&err, code)
            defer { zip_error_fini(&err) }
            throw Failure(reason: "not a readable zip archive (\(String(cString: zip_error_strerror(&err))))")
        }
        archive = za
    }

    deinit { zip_discard(archive) }

    /// Member names in central-directory order.
    var names: [String] {
        let n = zip_get_num_entries(archive, 0)
        guard n > 0 else { return [] }
        return (0..<UInt64(n)).compactMap { i in zip_get_name(archive, i, ZIP_FL_ENC_GUESS).map { String(cString: $0) } }
    }

    func contains(_ name: String) -> Bool { zip_name_locate(archive, name, 0) >= 0 }

    /// Reads one member, refusing it when it holds more than `limit` bytes.
    func read(_ name: String, limit: Int) throws(Failure) -> [UInt8] {
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
