import Foundation

/// One member of a hand-built zip file, with every field a hostile archive might lie about.
public struct CraftedZipEntry: Sendable {
    /// The name in the central directory (raw bytes: NUL, `\` and `..` allowed here on purpose).
    public var name: [UInt8]
    /// The bytes stored after the local header (already compressed when `method` is 8).
    public var stored: [UInt8]
    /// 0 stored, 8 deflate.
    public var method: UInt16 = 0
    /// CRC-32 of the uncompressed bytes; nil computes it from `stored` (right for stored members).
    public var crc: UInt32?
    /// Uncompressed size in both headers; nil means `stored.count`.
    public var uncompressedSize: UInt32?
    /// A different name in the local header only (a local/central mismatch).
    public var localName: [UInt8]?
    /// A different CRC in the local header only.
    public var localCRC: UInt32?
    /// Host system (high byte of "version made by"): 3 is Unix.
    public var hostSystem: UInt8 = 3
    /// External attributes; for Unix the mode sits in the top 16 bits.
    public var externalAttributes: UInt32 = (0o100644 as UInt32) << 16
    /// Both sizes in Zip64 form (APPNOTE 4.5.3): 0xFFFFFFFF in the headers, the real ones in a
    /// 0x0001 extra field of each, as a writer does for a member past 4 GiB.
    public var zip64 = false
    /// General-purpose flags in both headers (bit 3: a data descriptor follows the data).
    public var flags: UInt16 = 0

    public init(name: String, stored: [UInt8]) {
        self.name = Array(name.utf8)
        self.stored = stored
    }

    public init(rawName: [UInt8], stored: [UInt8]) {
        self.name = rawName
        self.stored = stored
    }
}

/// Writes zip files byte by byte (APPNOTE.TXT 4.3), so tests can stage archives that no
/// well-behaved zip library would produce: lying headers, bad CRCs, symlinks, NUL in names.
public enum ZipCrafting {
    public static func build(_ entries: [CraftedZipEntry], trailing: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for e in entries {
            let offset = UInt32(out.count)
            let crc = e.crc ?? crc32(e.stored)
            let size = e.uncompressedSize ?? UInt32(e.stored.count)
            let localName = e.localName ?? e.name
            let version: UInt16 = e.zip64 ? 45 : 20
            var extra: [UInt8] = []
            if e.zip64 { extra.u16(1); extra.u16(16); extra.u64(UInt64(size)); extra.u64(UInt64(e.stored.count)) }
            let (compressed32, size32) = e.zip64 ? (UInt32.max, UInt32.max) : (UInt32(e.stored.count), size)
            // Local file header.
            out.u32(0x0403_4b50); out.u16(version); out.u16(e.flags); out.u16(e.method)
            out.u16(0); out.u16(0x21)  // 1980-01-01 00:00
            out.u32(e.localCRC ?? crc); out.u32(compressed32); out.u32(size32)
            out.u16(UInt16(localName.count)); out.u16(UInt16(extra.count))
            out += localName
            out += extra
            out += e.stored
            // Central directory entry.
            central.u32(0x0201_4b50); central.u16(UInt16(e.hostSystem) << 8 | version); central.u16(version)
            central.u16(e.flags); central.u16(e.method); central.u16(0); central.u16(0x21)
            central.u32(crc); central.u32(compressed32); central.u32(size32)
            central.u16(UInt16(e.name.count)); central.u16(UInt16(extra.count)); central.u16(0)
            central.u16(0); central.u16(0); central.u32(e.externalAttributes); central.u32(offset)
            central += e.name
            central += extra
        }
        let directoryOffset = UInt32(out.count)
        out += central
        out.u32(0x0605_4b50); out.u16(0); out.u16(0)
        out.u16(UInt16(entries.count)); out.u16(UInt16(entries.count))
        out.u32(UInt32(central.count)); out.u32(directoryOffset); out.u16(0)
        return out + trailing
    }

    /// CRC-32 (IEEE 802.3, reflected, as zip uses it).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8)
        }
        return c ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Raw deflate (no zlib header) of `bytes`, made by Debian's python3 zlib module.
    public static func deflate(_ bytes: [UInt8], scratch: String) throws -> [UInt8] {
        let input = "\(scratch)/deflate-in-\(UInt32.random(in: 0...UInt32.max))"
        let output = input + ".out"
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        let script = "import sys,zlib; d=open(sys.argv[1],'rb').read(); c=zlib.compressobj(9,zlib.DEFLATED,-15); open(sys.argv[2],'wb').write(c.compress(d)+c.flush())"
        let r = try ProcessRunner.run("/usr/bin/python3", ["-c", script, input, output])
        guard r.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }
}

private extension Array where Element == UInt8 {
    mutating func u16(_ v: UInt16) { append(UInt8(v & 0xFF)); append(UInt8(v >> 8)) }
    mutating func u32(_ v: UInt32) { u16(UInt16(v & 0xFFFF)); u16(UInt16(v >> 16)) }
    mutating func u64(_ v: UInt64) { u32(UInt32(v & 0xFFFF_FFFF)); u32(UInt32(v >> 32)) }
}
