// libzip writes (and, on Linux, can read) archives; an app on an Apple platform cannot link it (docs/apple.md).
#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// A libzip data source (`zip_source_function`) that hands libzip a deflate stream made
/// elsewhere (`ParallelDeflate`) together with its method, sizes and CRC, so `zip_close`
/// copies the bytes as they are instead of compressing and checksumming them again.
///
/// libzip owns the source once it is added: it calls back with `ZIP_SOURCE_FREE` exactly once,
/// which releases the retained context.
final class ZipDeflatedSource {
    private let file: DeflatedFile
    private let levelFlags: UInt16
    private var fd: Int32 = -1
    private var offset: Int64 = 0
    private var error = zip_error_t()

    private init(file: DeflatedFile, level: Int32) {
        self.file = file
        // The general-purpose bits 1-2 zip gives deflate members (APPNOTE 4.4.4), as libzip sets them:
        // 01 maximum (level 8-9), 10 fast (level 1-2), 00 normal.
        levelFlags = level >= 8 ? 1 << 1 : level <= 2 ? 2 << 1 : 0
        zip_error_init(&error)
    }

    deinit {
        if fd >= 0 { close(fd) }
        zip_error_fini(&error)
    }

    /// A new source for `archive`; nil (with libzip's error set on the archive) when libzip cannot make one.
    static func make(for archive: OpaquePointer, file: DeflatedFile, level: Int32) -> OpaquePointer? {
        let context = Unmanaged.passRetained(ZipDeflatedSource(file: file, level: level))
        guard let source = zip_source_function(archive, callback, context.toOpaque()) else {
            context.release()
            return nil
        }
        return source
    }

    private static let supported: zip_int64_t = [ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                                ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SUPPORTS,
                                                ZIP_SOURCE_GET_FILE_ATTRIBUTES]
        .reduce(0) { $0 | (zip_int64_t(1) << zip_int64_t($1.rawValue)) }

    private static let callback: zip_source_callback = { userdata, data, length, command in
        let context = Unmanaged<ZipDeflatedSource>.fromOpaque(userdata!)
        let source = context.takeUnretainedValue()
        switch command {
        case ZIP_SOURCE_OPEN:
            source.fd = SystemCall.retrying { open(source.file.path, O_RDONLY | O_CLOEXEC) }
            guard source.fd >= 0 else { return source.fail(ZIP_ER_OPEN, errno) }
            source.offset = 0
            return 0
        case ZIP_SOURCE_READ:
            let wanted = Int(min(Int64(length), source.file.compressedSize - source.offset))
            guard wanted > 0 else { return 0 }
            let n = SystemCall.retrying { pread(source.fd, data, wanted, off_t(source.offset)) }
            guard n > 0 else { return source.fail(ZIP_ER_READ, n < 0 ? errno : EIO) }
            source.offset += Int64(n)
            return zip_int64_t(n)
        case ZIP_SOURCE_CLOSE:
            if source.fd >= 0 { close(source.fd) }
            source.fd = -1
            return 0
        case ZIP_SOURCE_STAT:
            let st = data!.assumingMemoryBound(to: zip_stat_t.self)
            zip_stat_init(st)
            st.pointee.valid = zip_uint64_t(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC)
            st.pointee.size = zip_uint64_t(source.file.size)
            st.pointee.comp_size = zip_uint64_t(source.file.compressedSize)
            st.pointee.comp_method = zip_uint16_t(ZIP_CM_DEFLATE)
            st.pointee.crc = source.file.crc32
            return zip_int64_t(MemoryLayout<zip_stat_t>.size)
        case ZIP_SOURCE_GET_FILE_ATTRIBUTES:
            let attributes = data!.assumingMemoryBound(to: zip_file_attributes_t.self)
            attributes.pointee.valid |= zip_uint64_t(ZIP_FILE_ATTRIBUTES_GENERAL_PURPOSE_BIT_FLAGS)
            attributes.pointee.general_purpose_bit_flags = source.levelFlags
            attributes.pointee.general_purpose_bit_mask = 0x0006
            return 0
        case ZIP_SOURCE_ERROR:
            return zip_error_to_data(&source.error, data, length)
        case ZIP_SOURCE_FREE:
            context.release()
            return 0
        case ZIP_SOURCE_SUPPORTS:
            return supported
        default:
            return source.fail(ZIP_ER_OPNOTSUPP, 0)
        }
    }

    private func fail(_ code: Int32, _ system: Int32) -> zip_int64_t {
        zip_error_set(&error, code, system)
        return -1
    }
}
#endif
