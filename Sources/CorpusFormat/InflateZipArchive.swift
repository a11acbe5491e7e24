import Foundation
internal import CZlib
#if canImport(Glibc)
import Glibc
#endif

/// A zip archive read with nothing but zlib (the zlib side of `ZipBackend`): the layout comes from
/// the pre-check (`ZipCentralDirectory`, `ZipMemberLayout`), which has already compared every local
/// header with its central entry, so reading a member is `pread` of its span, raw inflate
/// (`inflateInit2` with -15) for deflate members, and CRC-32 and size checks at its end.
///
/// Owns the source it was given (a descriptor is closed when the archive goes).
final class InflateZipArchive: ZipBackend {
    let source: any ZipByteSource
    let path: String
    private let entries: [ZipCentralDirectory.Entry]
    private let spans: [ZipMemberLayout.Span]

    init(source: any ZipByteSource, path: String, directory: ZipCentralDirectory, layout: ZipMemberLayout) {
        self.source = source
        self.path = path
        entries = directory.entries
        spans = layout.spans
    }

    var entryCount: Int { entries.count }

    func rawName(at index: Int) -> [UInt8]? { entries[index].name }

    func uncompressedSize(at index: Int) throws -> Int64 {
        guard entries[index].uncompressedSize <= UInt64(Int64.max) else {
            throw FormatError.archiveInconsistent(reason: "member \(index) has no usable size")
        }
        return Int64(entries[index].uncompressedSize)
    }

    func openMember(at index: Int, name: String) throws -> any ZipMemberStream {
        try InflateMemberStream(archive: self, entry: entries[index], span: spans[index], name: name)
    }
}

@available(*, unavailable) extension InflateZipArchive: Sendable {}

/// One member of an `InflateZipArchive` being read: stored bytes are read straight into the
/// caller's buffer, deflated ones inflated into it from a 256 KiB input buffer; the CRC-32 runs
/// over what is handed out. Keeps the archive (and so its source) alive while it reads.
final class InflateMemberStream: ZipMemberStream {
    private let archive: InflateZipArchive
    private let name: String
    private let expectedCRC: UInt32
    private let expectedSize: UInt64
    private let start: UInt64
    private let compressedSize: UInt64
    /// Compressed bytes read from the file so far.
    private var consumed: UInt64 = 0
    private var produced: UInt64 = 0
    private var crc: UInt = 0
    private var finished = false
    /// Deflate members only.
    private var stream: UnsafeMutablePointer<z_stream>?
    private var input = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var streamEnded = false

    private static let inputSize = 256 << 10

    init(archive: InflateZipArchive, entry: ZipCentralDirectory.Entry, span: ZipMemberLayout.Span, name: String) throws {
        self.archive = archive
        self.name = name
        expectedCRC = entry.crc
        expectedSize = entry.uncompressedSize
        start = span.dataOffset
        compressedSize = span.compressedSize
        guard entry.method == 8 else { return }
        let s = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        s.initialize(to: z_stream())
        guard czlib_inflate_init_raw(s) == Z_OK else {
            s.deallocate()
            throw FormatError.io(operation: "start inflating member \(name)", path: archive.path, errno: ENOMEM)
        }
        stream = s
        input = .allocate(byteCount: Self.inputSize, alignment: 64)
    }

    deinit {
        if let stream {
            inflateEnd(stream)
            stream.deallocate()
            input.deallocate()
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = stream == nil ? try readStored(into: buffer) : try inflate(into: base, count: buffer.count)
        if n == 0 {
            try finish()
            return 0
        }
        crc = Self.crc32(crc, UnsafeRawBufferPointer(start: base, count: n))
        produced += UInt64(n)
        return n
    }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let want = Int(min(UInt64(buffer.count), compressedSize - consumed))
        guard want > 0 else { return 0 }
        let n = try readAt(into: buffer.baseAddress!, count: want)
        consumed += UInt64(n)
        return n
    }

    /// Inflates until some output is made, the stream ends, or the input runs out (a damaged member).
    private func inflate(into base: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard let s = stream else { return 0 }
        if streamEnded { return 0 }
        s.pointee.next_out = base.assumingMemoryBound(to: Bytef.self)
        s.pointee.avail_out = uInt(min(count, Int(UInt32.max)))
        while true {
            if s.pointee.avail_in == 0, consumed < compressedSize {
                let n = try readAt(into: input.baseAddress!, count: Int(min(UInt64(input.count), compressedSize - consumed)))
                consumed += UInt64(n)
                s.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                s.pointee.avail_in = uInt(n)
            }
            let status = CZlib.inflate(s, Z_NO_FLUSH)
            let made = count - Int(s.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                streamEnded = true
                // The deflate stream must use exactly the member's compressed bytes.
                guard s.pointee.avail_in == 0, consumed == compressedSize else {
                    throw fail("the deflate stream ends \(compressedSize - consumed + UInt64(s.pointee.avail_in)) bytes before the member does")
                }
                return made
            case Z_OK:
                if made > 0 { return made }
            case Z_BUF_ERROR where s.pointee.avail_in == 0 && consumed == compressedSize:
                throw fail("the deflate stream is cut short")
            case Z_BUF_ERROR:
                if made > 0 { return made }
            default:
                throw fail("damaged deflate data (\(s.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"))")
            }
        }
    }

    /// At the member's end: the CRC first, then the size, as libzip checks them.
    private func finish() throws {
        finished = true
        guard UInt32(truncatingIfNeeded: crc) == expectedCRC else { throw fail("CRC mismatch") }
        guard produced == expectedSize else { throw fail("\(produced) bytes, the central directory says \(expectedSize)") }
    }

    private func readAt(into base: UnsafeMutableRawPointer, count: Int) throws -> Int {
        let n: Int
        do {
            n = try archive.source.read(into: UnsafeMutableRawBufferPointer(start: base, count: count), at: Int64(start + consumed))
        } catch FormatError.io(_, let path, let code) {
            throw FormatError.io(operation: "read member \(name)", path: path, errno: code)
        }
        if n == 0 { throw fail("the file ends inside the member") }
        return n
    }

    private func fail(_ reason: String) -> FormatError { .archiveInconsistent(reason: "read member \(name): \(reason)") }

    /// zlib's CRC-32 (its length is a 32-bit `uInt`, so long buffers go in pieces).
    private static func crc32(_ crc: UInt, _ bytes: UnsafeRawBufferPointer) -> UInt {
        var crc = crc
        var p = bytes.baseAddress!.assumingMemoryBound(to: Bytef.self)
        var left = bytes.count
        while left > 0 {
            let n = min(left, 1 << 30)
            crc = CZlib.crc32(crc, p, uInt(n))
            p += n
            left -= n
        }
        return crc
    }
}

@available(*, unavailable) extension InflateMemberStream: Sendable {}
