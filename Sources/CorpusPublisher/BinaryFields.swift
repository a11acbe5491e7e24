import Foundation
import CorpusFormat

/// Little-endian fields for the publisher's binary files (`BuildCacheCodec`,
/// `CatalogEntriesSnapshot`): a string is its UTF-8 length (u32) and bytes; a digest its 32
/// bytes; an optional a presence byte (0 or 1) before its value; a list its count (u32) first.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var data: Data { Data(bytes) }

    mutating func raw<C: Collection>(_ b: C) where C.Element == UInt8 { bytes.append(contentsOf: b) }
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func int(_ v: Int) { int64(Int64(v)) }
    mutating func int64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func uint64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }

    mutating func digest(_ d: SHA256Digest) { bytes.append(contentsOf: d.bytes) }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            u32(u.count)
            bytes.append(contentsOf: u)
        }
    }

    mutating func optional<T>(_ v: T?, _ body: (inout BinaryWriter, T) -> Void) {
        guard let v else { return u8(0) }
        u8(1)
        body(&self, v)
    }

    mutating func bundle(_ b: BundleRef) {
        string(b.path)
        digest(b.digest)
        int64(b.size)
    }

    mutating func embedder(_ e: EmbedderInfo) {
        string(e.id)
        int(e.dimension)
        string(e.encoding)
        optional(e.modelDigest) { $0.digest($1) }
    }

    mutating func deltaRef(_ d: DeltaRef) {
        string(d.fromVersion.description)
        digest(d.fromContent)
        bundle(d.file)
        optional(d.payload) { $0.bundle($1) }
    }
}

/// Reads what `BinaryWriter` wrote; every read is nil past the end or on a value out of range.
struct BinaryReader {
    let raw: UnsafeRawBufferPointer
    var at = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var atEnd: Bool { at == raw.count }

    mutating func take(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, raw.count - at >= n else { return nil }
        defer { at += n }
        return UnsafeRawBufferPointer(rebasing: raw[at ..< at + n])
    }

    mutating func u8() -> UInt8? { take(1)?[0] }
    mutating func u32() -> Int? { take(4).map { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) } }
    mutating func int64() -> Int64? { take(8).map { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) } }
    mutating func uint64() -> UInt64? { take(8).map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } }
    mutating func int() -> Int? { int64().map(Int.init) }
    mutating func bool() -> Bool? { u8().flatMap { $0 <= 1 ? $0 == 1 : nil } }
    mutating func digest() -> SHA256Digest? { take(32).map { SHA256Digest(bytes: Array($0)) } }
    mutating func string() -> String? {
        guard let n = u32(), let b = take(n) else { return nil }
        return String(validating: b, as: UTF8.self)
    }
    mutating func version() -> CorpusVersion? { string().flatMap(CorpusVersion.init) }

    /// Nil when the presence byte is neither 0 nor 1, or the value does not read; `.some(nil)` when absent.
    mutating func optional<T>(_ body: (inout BinaryReader) -> T?) -> T?? {
        switch u8() {
        case 0: return .some(nil)
        case 1: return body(&self).map { .some($0) }
        default: return nil
        }
    }

    mutating func bundle() -> BundleRef? {
        guard let path = string(), let digest = digest(), let size = int64() else { return nil }
        return BundleRef(path: path, digest: digest, size: size)
    }

    mutating func embedder() -> EmbedderInfo? {
        guard let id = string(), let dimension = int(), let encoding = string(), let modelDigest = optional({ $0.digest() }) else { return nil }
        return EmbedderInfo(id: id, dimension: dimension, encoding: encoding, modelDigest: modelDigest)
    }

    mutating func deltaRef() -> DeltaRef? {
        guard let fromVersion = version(), let fromContent = digest(), let file = bundle(), let payload = optional({ $0.bundle() }) else { return nil }
        var ref = DeltaRef(fromVersion: fromVersion, fromContent: fromContent, file: file)
        ref.payload = payload
        return ref
    }
}
