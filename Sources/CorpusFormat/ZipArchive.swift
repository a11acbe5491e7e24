// libzip writes (and, on Linux, can read) archives; an app on an Apple platform cannot link it (docs/apple.md).
#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// Owns one libzip archive handle (`zip_t`).
///
/// Reading archives always goes through libzip with `ZIP_CHECKCONS`, which compares every
/// local header with its central directory entry and checks that the central directory ends
/// where the end record says; reading a member to its end makes libzip check its CRC and size.
/// The corresponding C functions are `zip_open`, `zip_fdopen`, `zip_close` and `zip_discard`.
final class ZipArchive {
    private(set) var handle: OpaquePointer?
    let path: String

    /// Opens a zip file by path (`zip_open`); `flags` are libzip's `ZIP_*` open flags.
    init(path: String, flags: Int32) throws {
        var code: Int32 = 0
        guard let h = zip_open(path, flags, &code) else {
            throw ZipArchive.error(code: code, system: errno, operation: "open zip", path: path)
        }
        handle = h
        self.path = path
    }

    /// Opens a zip file through a descriptor the caller already checked (`zip_fdopen`).
    /// libzip takes ownership of `fd` only on success; on failure the caller still owns it.
    init(fd: Int32, path: String, flags: Int32) throws {
        var code: Int32 = 0
        guard let h = zip_fdopen(fd, flags, &code) else {
            throw ZipArchive.error(code: code, system: errno, operation: "open zip", path: path)
        }
        handle = h
        self.path = path
    }

    deinit {
        // An archive never committed (read-only, or a write that failed) is dropped without writing.
        if let handle { zip_discard(handle) }
    }

    var pointer: OpaquePointer {
        guard let handle else { preconditionFailure("ZipArchive used after close()") }
        return handle
    }

    /// Writes pending changes and releases the handle (`zip_close`).
    func close() throws {
        guard let h = handle else { return }
        if zip_close(h) != 0 {
            let err = lastError(operation: "write zip")
            // zip_close leaves the handle open on failure; drop it without writing.
            zip_discard(h)
            handle = nil
            throw err
        }
        handle = nil
    }

    var entryCount: Int { Int(zip_get_num_entries(pointer, 0)) }

    /// The entry's name exactly as stored (`zip_get_name` with `ZIP_FL_ENC_RAW`).
    func rawName(at index: Int) -> [UInt8]? {
        guard let p = zip_get_name(pointer, zip_uint64_t(index), zip_flags_t(ZIP_FL_ENC_RAW)) else { return nil }
        return Array(String(cString: p).utf8)
    }

    struct EntryInfo {
        var size: Int64
        var compressedSize: Int64
        var compressionMethod: Int32
        var encrypted: Bool
    }

    /// Sizes and methods from the central directory (`zip_stat_index`).
    func info(at index: Int) throws -> EntryInfo {
        var st = zip_stat_t()
        zip_stat_init(&st)
        guard zip_stat_index(pointer, zip_uint64_t(index), 0, &st) == 0 else { throw lastError(operation: "stat member") }
        let need = zip_uint64_t(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD)
        guard st.valid & need == need, st.size <= UInt64(Int64.max), st.comp_size <= UInt64(Int64.max) else {
            throw FormatError.archiveInconsistent(reason: "member \(index) has no usable size")
        }
        return EntryInfo(size: Int64(st.size), compressedSize: Int64(st.comp_size), compressionMethod: Int32(st.comp_method),
                         encrypted: st.encryption_method != UInt16(ZIP_EM_NONE))
    }

    /// Opens an entry for reading its uncompressed bytes (`zip_fopen_index`).
    func openEntry(at index: Int, name: String) throws -> ZipEntryReader {
        let size = try info(at: index).size
        guard let f = zip_fopen_index(pointer, zip_uint64_t(index), 0) else {
            throw lastError(operation: "open member \(name)")
        }
        return ZipEntryReader(archive: self, file: f, name: name, declaredSize: size)
    }

    // MARK: Writing

    /// How a member is stored.
    enum Compression {
        case stored
        case deflated

        var method: Int32 { self == .stored ? Int32(ZIP_CM_STORE) : Int32(ZIP_CM_DEFLATE) }
    }

    /// Fixed metadata that makes the output independent of when and by whom it was written:
    /// DOS time 1980-01-01 00:00:00 and a Unix regular file with mode 0644.
    private static let dosTime: UInt16 = 0
    private static let dosDate: UInt16 = (0 << 9) | (1 << 5) | 1
    private static let unixRegular0644: UInt32 = (UInt32(S_IFREG) | 0o644) << 16

    /// Adds a member whose bytes are copied now (`zip_source_buffer`, freed by libzip).
    /// `level` is the deflate level 1...9, or 0 for libzip's default (9); stored members ignore it.
    func add(name: String, bytes: Data, compression: Compression, level: UInt32 = 0) throws {
        let copy = malloc(max(bytes.count, 1))!
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { memcpy(copy, base, raw.count) }
        }
        guard let src = zip_source_buffer(pointer, copy, zip_uint64_t(bytes.count), 1) else {
            free(copy)
            throw lastError(operation: "add member \(name)")
        }
        try add(name: name, source: src, compression: compression, level: level)
    }

    /// Adds a member read from a file when the archive is closed (`zip_source_file`).
    /// `length` pins the byte count that was hashed, so a file growing later cannot change the member.
    func add(name: String, fileAt filePath: String, length: Int64, compression: Compression, level: UInt32 = 0) throws {
        guard let src = zip_source_file(pointer, filePath, 0, zip_int64_t(length)) else {
            throw lastError(operation: "add member \(name) from \(filePath)")
        }
        try add(name: name, source: src, compression: compression, level: level)
    }

    /// Adds a member whose deflate stream is already made, copied into the archive as it is.
    /// `level` is the level it was made with, recorded in the member's flags.
    func add(name: String, deflated: DeflatedFile, level: Int32) throws {
        guard let src = ZipDeflatedSource.make(for: pointer, file: deflated, level: level) else {
            throw lastError(operation: "add member \(name) from \(deflated.path)")
        }
        // No compression is set: libzip takes the method (and so the sizes) from the source.
        try add(name: name, source: src, compression: nil, level: 0)
    }

    private func add(name: String, source: OpaquePointer, compression: Compression?, level: UInt32) throws {
        let index = zip_file_add(pointer, name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
        guard index >= 0 else {
            // On failure the source still belongs to us.
            zip_source_free(source)
            throw lastError(operation: "add member \(name)")
        }
        let i = zip_uint64_t(index)
        if let compression, zip_set_file_compression(pointer, i, compression.method, compression == .stored ? 0 : level) != 0 {
            throw lastError(operation: "set compression of member \(name)")
        }
        guard zip_file_set_dostime(pointer, i, Self.dosTime, Self.dosDate, 0) == 0,
              zip_file_set_external_attributes(pointer, i, 0, zip_uint8_t(ZIP_OPSYS_UNIX), Self.unixRegular0644) == 0 else {
            throw lastError(operation: "set attributes of member \(name)")
        }
    }

    // MARK: Errors

    func lastError(operation: String) -> FormatError {
        let e = zip_get_error(pointer)
        return ZipArchive.error(code: zip_error_code_zip(e), system: zip_error_code_system(e), operation: operation, path: path)
    }

    /// Maps a libzip error code: damaged or hostile archives become `archiveInconsistent`,
    /// operating-system failures become `io` with the errno libzip saw.
    static func error(code: Int32, system: Int32, operation: String, path: String) -> FormatError {
        var e = zip_error_t()
        zip_error_init_with_code(&e, code)
        let message = String(cString: zip_error_strerror(&e))
        zip_error_fini(&e)
        switch code {
        case ZIP_ER_OPEN, ZIP_ER_READ, ZIP_ER_WRITE, ZIP_ER_SEEK, ZIP_ER_TELL, ZIP_ER_TMPOPEN, ZIP_ER_RENAME,
             ZIP_ER_CLOSE, ZIP_ER_REMOVE:
            return .io(operation: operation, path: path, errno: system != 0 ? system : EIO)
        case ZIP_ER_MEMORY:
            return .io(operation: operation, path: path, errno: ENOMEM)
        case ZIP_ER_CRC:
            return .archiveInconsistent(reason: "\(operation): CRC mismatch")
        default:
            return .archiveInconsistent(reason: "\(operation): \(message)")
        }
    }
}

@available(*, unavailable) extension ZipArchive: Sendable {}

/// Owns one open member of a `ZipArchive` (`zip_file_t`), keeping the archive alive while it reads.
final class ZipEntryReader {
    private let archive: ZipArchive
    private var file: OpaquePointer?
    let name: String
    /// The uncompressed size the central directory gives, and what was read so far.
    private let declaredSize: Int64
    private var produced: Int64 = 0

    init(archive: ZipArchive, file: OpaquePointer, name: String, declaredSize: Int64) {
        self.archive = archive
        self.file = file
        self.name = name
        self.declaredSize = declaredSize
    }

    deinit { if let file { zip_fclose(file) } }

    /// Reads up to `buffer.count` uncompressed bytes; 0 means the member ended and its CRC and
    /// size checked out (`zip_fread`). A CRC or size failure at the end is thrown here.
    ///
    /// libzip (1.7.3, Debian 12) checks the CRC at the end of a deflated member but not its
    /// length: a member of one byte more or less than the central directory says, with the right
    /// CRC, read whole. So the length is checked here, in the zlib reader's words and order.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let file, let base = buffer.baseAddress else { return 0 }
        let n = zip_fread(file, base, zip_uint64_t(buffer.count))
        if n < 0 {
            let e = zip_file_get_error(file)
            throw ZipArchive.error(code: zip_error_code_zip(e), system: zip_error_code_system(e),
                                   operation: "read member \(name)", path: archive.path)
        }
        produced += n
        if n == 0, produced != declaredSize {
            throw FormatError.archiveInconsistent(reason: "read member \(name): \(produced) bytes, the central directory says \(declaredSize)")
        }
        return Int(n)
    }
}

@available(*, unavailable) extension ZipEntryReader: Sendable {}

/// libzip's side of the `ZipReader` seam.
extension ZipArchive: ZipBackend {
    func uncompressedSize(at index: Int) throws -> Int64 { try info(at: index).size }

    func openMember(at index: Int, name: String) throws -> any ZipMemberStream { try openEntry(at: index, name: name) }
}

extension ZipEntryReader: ZipMemberStream {}
#endif
