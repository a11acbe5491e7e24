import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where each member's data lies, from its local header checked against its central directory
/// entry: the second half of the pre-check both zip readers share (`ZipReader`), after
/// `ZipCentralDirectory` and the caller's member table.
///
/// What it refuses, for every archive: a method other than stored or deflate, an encrypted member,
/// a stored member whose two sizes differ, a name twice or with a NUL byte, a local header that is missing or names,
/// compresses, dates, sizes or checksums its member differently from the central directory (a
/// "master key" pair), and members whose data overlap each other or the central directory.
/// For a bundle (`Limits.strictLayout`) also anything the publisher does not write: a data
/// descriptor, local flags other than the central ones, and any byte not inside a member (the
/// members must fill the file from its first byte to the central directory, back to back).
struct ZipMemberLayout {
    struct Span {
        /// Where the member's stored (possibly deflated) bytes start.
        var dataOffset: UInt64
        var compressedSize: UInt64
    }

    let spans: [Span]

    private static func bad(_ reason: String) -> FormatError { .archiveInconsistent(reason: reason) }

    static func check(_ directory: ZipCentralDirectory, source: any ZipByteSource, path: String) throws -> ZipMemberLayout {
        var seen = Set<[UInt8]>()
        var spans: [Span] = []
        for (index, entry) in directory.entries.enumerated() {
            let shown = String(decoding: entry.name, as: UTF8.self)
            // libzip shows a NUL as a space, so it could not read the member under its real name.
            guard !entry.name.contains(0) else { throw FormatError.unsafeMemberName(shown) }
            guard seen.insert(entry.name).inserted else { throw FormatError.duplicateMember(shown) }
            try checkMethod(entry, shown: shown, strict: directory.limits.strictLayout)
            spans.append(try localHeader(of: entry, index: index, shown: shown, directory: directory, source: source, path: path))
        }
        try checkPlacement(spans, entries: directory.entries, directory: directory)
        return ZipMemberLayout(spans: spans)
    }

    private static func checkMethod(_ entry: ZipCentralDirectory.Entry, shown: String, strict: Bool) throws {
        guard entry.method == 0 || entry.method == 8 else {
            throw FormatError.unsupported(what: "member \(shown)", reason: "it is compressed with method \(entry.method); only stored (0) and deflate (8) are read")
        }
        // Bit 0 is traditional encryption, bit 6 strong encryption: content we could not verify.
        guard entry.flags & 0x41 == 0 else { throw FormatError.unsupported(what: "member \(shown)", reason: "it is encrypted") }
        if strict, entry.flags & 0x08 != 0 {
            throw FormatError.unsupported(what: "member \(shown)", reason: "it has a data descriptor, which the publisher never writes")
        }
        if entry.method == 0, entry.compressedSize != entry.uncompressedSize {
            throw bad("stored member \(shown) has a compressed size of \(entry.compressedSize) and a size of \(entry.uncompressedSize)")
        }
    }

    /// Reads the local header of `entry` and returns where its data lies.
    private static func localHeader(of entry: ZipCentralDirectory.Entry, index: Int, shown: String,
                                     directory: ZipCentralDirectory, source: any ZipByteSource, path: String) throws -> Span {
        let offset = entry.localHeaderOffset
        guard offset < directory.directoryOffset, directory.directoryOffset - offset >= 30 else {
            throw bad("member \(shown) has its local header outside the members")
        }
        let fixed = try ZipCentralDirectory.preadExactly(source, count: 30, at: Int64(offset), path: path)
        guard fixed.u32(0) == 0x0403_4b50 else { throw bad("member \(shown) has no local header at offset \(offset)") }
        let nameLength = Int(fixed.u16(26)), extraLength = Int(fixed.u16(28))
        guard directory.directoryOffset - offset - 30 >= UInt64(nameLength + extraLength) else {
            throw bad("member \(shown) has a local header running into the central directory")
        }
        let variable = try ZipCentralDirectory.preadExactly(source, count: nameLength + extraLength, at: Int64(offset) + 30, path: path)
        guard Array(variable[0..<nameLength]) == entry.name else {
            throw bad("member \(index) is named \(String(decoding: variable[0..<nameLength], as: UTF8.self).debugDescription) in its local header, \(shown.debugDescription) in the central directory")
        }
        let flags = fixed.u16(6)
        let flagMask: UInt16 = directory.limits.strictLayout ? 0xFFFF : 0x0049
        guard flags & flagMask == entry.flags & flagMask, fixed.u16(8) == entry.method, fixed.u32(10) == entry.modified,
              fixed.u16(4) <= entry.versionNeeded else {
            throw bad("member \(shown) has a local header whose flags, method, time or version differ from the central directory")
        }
        let extra = ExtraFields(bytes: variable, range: nameLength..<(nameLength + extraLength))
        guard extra.isWellFormed else { throw bad("member \(shown) has damaged extra fields in its local header") }
        try checkLocalSizes(fixed, extra: extra, entry: entry, shown: shown)
        return Span(dataOffset: offset + 30 + UInt64(nameLength + extraLength), compressedSize: entry.compressedSize)
    }

    /// The local CRC and sizes (Zip64 ones from the 0x0001 extra field, which a local header holds
    /// both of, APPNOTE 4.5.3) equal the central ones; with a data descriptor, each may be zero.
    private static func checkLocalSizes(_ fixed: [UInt8], extra: ExtraFields, entry: ZipCentralDirectory.Entry, shown: String) throws {
        var uncompressed = UInt64(fixed.u32(22)), compressed = UInt64(fixed.u32(18))
        if uncompressed == 0xFFFF_FFFF || compressed == 0xFFFF_FFFF {
            guard let values = extra.zip64Values, values.count >= 2 else { throw bad("member \(shown) lacks the Zip64 sizes of its local header") }
            // Only a saturated field is replaced; a plain 32-bit one is the size, and must agree too.
            if uncompressed == 0xFFFF_FFFF { uncompressed = values[0] }
            if compressed == 0xFFFF_FFFF { compressed = values[1] }
        }
        let descriptor = entry.flags & 0x08 != 0
        func agrees(_ local: UInt64, _ central: UInt64) -> Bool { local == central || (descriptor && local == 0) }
        guard agrees(UInt64(fixed.u32(14)), UInt64(entry.crc)), agrees(compressed, entry.compressedSize),
              agrees(uncompressed, entry.uncompressedSize) else {
            throw bad("member \(shown) has a local header whose CRC or sizes differ from the central directory")
        }
    }

    /// No member's data overlaps another's or the central directory; in a strict layout the members
    /// also fill everything before the central directory, in order of their offsets.
    private static func checkPlacement(_ spans: [Span], entries: [ZipCentralDirectory.Entry], directory: ZipCentralDirectory) throws {
        var end: UInt64 = 0
        for i in spans.indices.sorted(by: { entries[$0].localHeaderOffset < entries[$1].localHeaderOffset }) {
            let shown = String(decoding: entries[i].name, as: UTF8.self)
            let start = entries[i].localHeaderOffset
            guard start >= end else { throw bad("member \(shown) overlaps the member before it") }
            if directory.limits.strictLayout, start != end { throw bad("\(start - end) bytes before member \(shown) belong to no member") }
            guard spans[i].compressedSize <= directory.directoryOffset - spans[i].dataOffset else {
                throw bad("member \(shown) runs into the central directory")
            }
            end = spans[i].dataOffset + spans[i].compressedSize
        }
        if directory.limits.strictLayout, end != directory.directoryOffset {
            throw bad("\(directory.directoryOffset - end) bytes before the central directory belong to no member")
        }
    }
}
