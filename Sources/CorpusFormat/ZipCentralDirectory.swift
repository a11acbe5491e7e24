import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw look at a zip file's end record and central directory, taken before either zip reader
/// (`ZipReader`'s libzip or zlib side) opens it: the pre-check both sides share.
///
/// It exists because libzip hides two things a bundle reader must see: it turns NUL bytes inside
/// names into spaces, and it tolerates bytes after the end record. So the names are checked byte
/// for byte here, and the archive must end exactly where its end record (and comment) ends. The
/// entries' methods, sizes, CRCs and offsets (Zip64 extra fields resolved) are what
/// `ZipMemberLayout` checks the local headers against and the zlib reader reads by.
/// See APPNOTE.TXT sections 4.3.12-4.3.16 and 4.5.3.
struct ZipCentralDirectory {
    struct Entry {
        /// The name exactly as stored, NUL and control bytes included.
        var name: [UInt8]
        /// The high byte of "version made by": 3 is Unix, whose mode sits in the top 16 bits of `externalAttributes`.
        var hostSystem: UInt8
        var externalAttributes: UInt32
        var flags: UInt16
        var versionNeeded: UInt16 = 20
        /// 0 stored, 8 deflate (anything else is refused by `ZipMemberLayout`).
        var method: UInt16 = 0
        /// DOS time in the low 16 bits, DOS date in the high 16.
        var modified: UInt32 = 0
        var crc: UInt32 = 0
        var compressedSize: UInt64 = 0
        var uncompressedSize: UInt64 = 0
        var localHeaderOffset: UInt64 = 0
    }

    var entries: [Entry]
    /// Where the central directory starts: every member's data must end before it.
    var directoryOffset: UInt64 = 0
    /// The limits the directory was read with, which also say how strict the layout check is.
    var limits: Limits = .bundle

    /// How large a central directory may be before it is refused unread.
    struct Limits {
        var entries: Int
        var directoryBytes: Int
        /// What the publisher writes and nothing else: members back to back from the first byte
        /// to the central directory, no data descriptors, local flags equal to the central ones.
        /// Another program's zip may leave gaps and use data descriptors (`ZipMemberLayout`).
        var strictLayout: Bool

        /// Bundles have four members; a central directory beyond this is not a bundle.
        static let bundle = Limits(entries: 1024, directoryBytes: 1 << 20, strictLayout: true)
        /// Another program's export: a page or a chapter per member, still bounded.
        static let export = Limits(entries: 200_000, directoryBytes: 64 << 20, strictLayout: false)
    }
    private static let eocdSize = 22
    private static let maxCommentBytes = 0xFFFF

    static func read(fd: Int32, path: String, limits: Limits = .bundle) throws -> ZipCentralDirectory {
        try read(source: DescriptorByteSource(fd: fd, path: path, owning: false), path: path, limits: limits)
    }

    static func read(source: any ZipByteSource, path: String, limits: Limits = .bundle) throws -> ZipCentralDirectory {
        let end = try endRecord(source: source, path: path, limits: limits)
        let dir = try preadExactly(source, count: Int(end.size), at: Int64(end.offset), path: path)
        return ZipCentralDirectory(entries: try entries(in: dir, count: end.count), directoryOffset: end.offset, limits: limits)
    }

    private static func bad(_ reason: String) -> FormatError { .archiveInconsistent(reason: reason) }

    /// Where the central directory is and how many entries it holds, from the end of central
    /// directory record (and the Zip64 one it points at), which must end the file exactly; a
    /// directory beyond `limits`, or not ending where the record begins, is refused.
    private static func endRecord(source: any ZipByteSource, path: String, limits: Limits) throws -> (count: UInt64, size: UInt64, offset: UInt64) {
        let fileSize = try source.byteCount()
        guard fileSize >= eocdSize else { throw bad("too short to be a zip file") }

        let tailLength = Int(min(fileSize, Int64(eocdSize + maxCommentBytes)))
        let tailStart = fileSize - Int64(tailLength)
        let tail = try preadExactly(source, count: tailLength, at: tailStart, path: path)

        // The last end record wins, as in every reader; it must be followed by exactly its comment.
        var eocdAt: Int?
        var i = tail.count - eocdSize
        while i >= 0 {
            if tail.u32(i) == 0x0605_4b50 { eocdAt = i; break }
            i -= 1
        }
        guard let e = eocdAt else { throw bad("no end of central directory record") }
        let commentLength = Int(tail.u16(e + 20))
        guard e + eocdSize + commentLength == tail.count else {
            throw bad("\(tail.count - e - eocdSize - commentLength) bytes after the end of the archive")
        }
        guard tail.u16(e + 4) == 0, tail.u16(e + 6) == 0, tail.u16(e + 8) == tail.u16(e + 10) else {
            throw bad("multi-disk archives are not supported")
        }
        var count = UInt64(tail.u16(e + 10))
        var directorySize = UInt64(tail.u32(e + 12))
        var directoryOffset = UInt64(tail.u32(e + 16))
        var directoryEnd = UInt64(tailStart) + UInt64(e)

        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // Zip64: a locator right before the end record points at the Zip64 end record.
            guard e >= 20, tail.u32(e - 20) == 0x0706_4b50 else { throw bad("Zip64 end record locator missing") }
            let recordOffset = tail.u64(e - 20 + 8)
            guard directoryEnd >= 20 + 56, recordOffset <= directoryEnd - 20 - 56 else { throw bad("Zip64 end record out of range") }
            let record = try preadExactly(source, count: 56, at: Int64(recordOffset), path: path)
            guard record.u32(0) == 0x0606_4b50 else { throw bad("Zip64 end record missing") }
            guard record.u64(4) == directoryEnd - 20 - 12 - recordOffset else { throw bad("Zip64 end record has the wrong size") }
            count = record.u64(32)
            directorySize = record.u64(40)
            directoryOffset = record.u64(48)
            directoryEnd = recordOffset
        }
        guard count <= UInt64(limits.entries), directorySize <= UInt64(limits.directoryBytes) else {
            throw bad("central directory too large (\(count) entries, \(directorySize) bytes; at most \(limits.entries), \(limits.directoryBytes))")
        }
        guard directoryOffset <= directoryEnd, directoryEnd - directoryOffset == directorySize else {
            throw bad("central directory does not end where the end record begins")
        }
        return (count, directorySize, directoryOffset)
    }

    /// The `count` entries of the raw central directory `dir`, which they must fill exactly.
    private static func entries(in dir: [UInt8], count: UInt64) throws -> [Entry] {
        var entries: [Entry] = []
        var p = 0
        for _ in 0..<count {
            guard p + 46 <= dir.count, dir.u32(p) == 0x0201_4b50 else { throw bad("central directory entry \(entries.count) is damaged") }
            let nameLength = Int(dir.u16(p + 28)), extraLength = Int(dir.u16(p + 30)), commentLength = Int(dir.u16(p + 32))
            let next = p + 46 + nameLength + extraLength + commentLength
            guard next <= dir.count else { throw bad("central directory entry \(entries.count) overruns the directory") }
            var entry = Entry(name: Array(dir[(p + 46)..<(p + 46 + nameLength)]), hostSystem: UInt8(dir.u16(p + 4) >> 8),
                              externalAttributes: dir.u32(p + 38), flags: dir.u16(p + 8))
            entry.versionNeeded = dir.u16(p + 6)
            entry.method = dir.u16(p + 10)
            entry.modified = dir.u32(p + 12)
            entry.crc = dir.u32(p + 16)
            guard dir.u16(p + 34) == 0 else { throw bad("central directory entry \(entries.count) starts on another disk") }
            let extra = ExtraFields(bytes: dir, range: (p + 46 + nameLength)..<(p + 46 + nameLength + extraLength))
            guard extra.isWellFormed else { throw bad("central directory entry \(entries.count) has damaged extra fields") }
            // Zip64 (APPNOTE 4.5.3): each field saturated here is in the 0x0001 extra field, in this order.
            var zip64 = extra.zip64Values
            func resolve(_ field: UInt32) throws -> UInt64 {
                guard field == 0xFFFF_FFFF else { return UInt64(field) }
                guard let value = zip64?.first else { throw bad("central directory entry \(entries.count) lacks its Zip64 sizes") }
                zip64?.removeFirst()
                return value
            }
            entry.uncompressedSize = try resolve(dir.u32(p + 24))
            entry.compressedSize = try resolve(dir.u32(p + 20))
            entry.localHeaderOffset = try resolve(dir.u32(p + 42))
            entries.append(entry)
            p = next
        }
        guard p == dir.count else { throw bad("central directory has \(dir.count - p) unaccounted bytes") }
        return entries
    }

    static func preadExactly(_ source: any ZipByteSource, count: Int, at offset: Int64, path: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = try out.withUnsafeMutableBytes { buf in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[done..<count]), at: offset + Int64(done))
            }
            if n == 0 { throw FormatError.archiveInconsistent(reason: "file ends inside the central directory") }
            done += n
        }
        return out
    }
}

/// The extra field of a header (APPNOTE 4.5.1): blocks of a 2-byte id, a 2-byte length and data.
struct ExtraFields {
    let bytes: [UInt8]
    let range: Range<Int>

    /// Blocks that fill the field exactly, none running past its end.
    var isWellFormed: Bool {
        var p = range.lowerBound
        while p < range.upperBound {
            guard p + 4 <= range.upperBound else { return false }
            p += 4 + Int(bytes.u16(p + 2))
            guard p <= range.upperBound else { return false }
        }
        return true
    }

    /// The 8-byte values of the Zip64 extended information field (id 0x0001), if there is one.
    var zip64Values: [UInt64]? {
        var p = range.lowerBound
        while p + 4 <= range.upperBound {
            let id = bytes.u16(p), length = Int(bytes.u16(p + 2))
            guard p + 4 + length <= range.upperBound else { return nil }
            if id == 0x0001 { return stride(from: p + 4, to: p + 4 + length - 7, by: 8).map { bytes.u64($0) } }
            p += 4 + length
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
}
