import Foundation
import CorpusFormat

/// `.build-cache` format 3: the build cache in binary, every field of every entry written in a
/// fixed order. Reading 100,000 entries as JSON took two to four seconds of a republish (most of
/// it Codable's work, about 20 µs an entry, on both cores); this reads them in a tenth of that on
/// one. Little-endian; a string is its UTF-8 length (u32) and bytes; a digest its 32 bytes; an
/// optional a presence byte (0 or 1) before its value; a list or map its count (u32) before its
/// items, a map's items sorted by key.
///
///     magic "corpus-build-cache 3\n", count (u32), then per entry, sorted by key:
///     key, inputs, bundle, manifest, sourceBundled (0 nil, 1 false, 2 true), deltas?, sources?, bundleStamp?
///     bundle (BundleRef): path, sha256, size (i64)
///     manifest (CachedManifest): id, version, title, description, language, license,
///         embedder (id, dimension i64, encoding, digest?), documents (i64), passages (i64), content
///     delta (CachedDelta): fromVersion, fromContent, path, sha256, size, payload? (BundleRef), base, target
///     source: path, stamp, sha256;  stamp (FileStamp): device, inode, size, modified, changed (i64 each)
///
/// `BuildCacheCodecTests` counts the stored types' fields, so a field added to one of them fails
/// until it is written here too.
enum BuildCacheCodec {
    static let magic = Array("corpus-build-cache 3\n".utf8)

    static func encode(_ corpora: [String: BuildCache.Entry]) -> Data {
        var w = Writer()
        w.bytes(magic)
        w.u32(corpora.count)
        for (key, e) in corpora.sorted(by: { $0.key < $1.key }) {
            w.string(key)
            w.string(e.inputs)
            w.bundle(e.bundle)
            let m = e.manifest
            for s in [m.id, m.version.description, m.title, m.description, m.language, m.license] { w.string(s) }
            w.string(m.embedder.id)
            w.int(m.embedder.dimension)
            w.string(m.embedder.encoding)
            w.optional(m.embedder.modelDigest) { $0.digest($1) }
            w.int(m.documents)
            w.int(m.passages)
            w.digest(m.content)
            w.u8(e.sourceBundled.map { $0 ? 2 : 1 } ?? 0)
            w.optional(e.deltas) { w, deltas in
                w.u32(deltas.count)
                for d in deltas {
                    w.string(d.ref.fromVersion.description)
                    w.digest(d.ref.fromContent)
                    w.bundle(d.ref.file)
                    w.optional(d.ref.payload) { $0.bundle($1) }
                    w.digest(d.base)
                    w.digest(d.target)
                }
            }
            w.optional(e.sources) { w, sources in
                w.u32(sources.count)
                for (path, s) in sources.sorted(by: { $0.key < $1.key }) {
                    w.string(path)
                    w.stamp(s.stamp)
                    w.digest(s.sha256)
                }
            }
            w.optional(e.bundleStamp) { $0.stamp($1) }
        }
        return w.data
    }

    /// The entries; nil when the data is not a whole cache of this format.
    static func decode(_ data: Data) -> [String: BuildCache.Entry]? {
        data.withUnsafeBytes { raw -> [String: BuildCache.Entry]? in
            var r = Reader(raw)
            guard r.take(magic.count).map(Array.init) == magic, let count = r.u32() else { return nil }
            var out: [String: BuildCache.Entry] = [:]
            out.reserveCapacity(count)
            for _ in 0..<count {
                guard let key = r.string(), let entry = r.entry(), out.updateValue(entry, forKey: key) == nil else { return nil }
            }
            return r.atEnd ? out : nil
        }
    }

    struct Writer {
        var data = Data()

        mutating func bytes<C: Collection>(_ b: C) where C.Element == UInt8 { data.append(contentsOf: b) }
        mutating func u8(_ v: UInt8) { data.append(v) }
        mutating func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        mutating func int(_ v: Int) { int64(Int64(v)) }
        mutating func int64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        mutating func uint64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        mutating func digest(_ d: SHA256Digest) { data.append(contentsOf: d.bytes) }

        mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { u in
                u32(u.count)
                data.append(contentsOf: u)
            }
        }

        mutating func optional<T>(_ v: T?, _ body: (inout Writer, T) -> Void) {
            guard let v else { return u8(0) }
            u8(1)
            body(&self, v)
        }

        mutating func bundle(_ b: BundleRef) {
            string(b.path)
            digest(b.digest)
            int64(b.size)
        }

        mutating func stamp(_ s: FileStamp) {
            uint64(s.device)
            uint64(s.inode)
            int64(s.size)
            int64(s.modified)
            int64(s.changed)
        }
    }

    struct Reader {
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
        mutating func digest() -> SHA256Digest? { take(32).map { SHA256Digest(bytes: Array($0)) } }
        mutating func string() -> String? {
            guard let n = u32(), let b = take(n) else { return nil }
            return String(validating: b, as: UTF8.self)
        }
        mutating func version() -> CorpusVersion? { string().flatMap(CorpusVersion.init) }

        /// Nil when the presence byte is neither 0 nor 1, or the value does not read; `.some(nil)` when absent.
        mutating func optional<T>(_ body: (inout Reader) -> T?) -> T?? {
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

        mutating func stamp() -> FileStamp? {
            guard let device = uint64(), let inode = uint64(), let size = int64(), let modified = int64(), let changed = int64() else { return nil }
            return FileStamp(device: device, inode: inode, size: size, modified: modified, changed: changed)
        }

        mutating func entry() -> BuildCache.Entry? {
            guard let inputs = string(), let bundle = bundle(),
                  let id = string(), let version = version(), let title = string(), let description = string(),
                  let language = string(), let license = string(),
                  let embedderID = string(), let dimension = int(), let encoding = string(),
                  let modelDigest = optional({ $0.digest() }),
                  let documents = int(), let passages = int(), let content = digest(),
                  let bundled = u8(), bundled <= 2,
                  let deltas = optional({ $0.deltas() }),
                  let sources = optional({ $0.sources() }),
                  let bundleStamp = optional({ $0.stamp() }) else { return nil }
            let manifest = CachedManifest(id: id, version: version, title: title, description: description, language: language,
                                          license: license, embedder: EmbedderInfo(id: embedderID, dimension: dimension, encoding: encoding, modelDigest: modelDigest),
                                          documents: documents, passages: passages, content: content)
            return BuildCache.Entry(inputs: inputs, bundle: bundle, manifest: manifest, sourceBundled: bundled == 0 ? nil : bundled == 2,
                                    deltas: deltas, sources: sources, bundleStamp: bundleStamp)
        }

        mutating func deltas() -> [BuildCache.CachedDelta]? {
            guard let count = u32() else { return nil }
            var out: [BuildCache.CachedDelta] = []
            for _ in 0..<count {
                guard let fromVersion = version(), let fromContent = digest(), let file = bundle(),
                      let payload = optional({ $0.bundle() }), let base = digest(), let target = digest() else { return nil }
                var ref = DeltaRef(fromVersion: fromVersion, fromContent: fromContent, file: file)
                ref.payload = payload
                out.append(BuildCache.CachedDelta(ref: ref, base: base, target: target))
            }
            return out
        }

        mutating func sources() -> [String: StampedDigest]? {
            guard let count = u32() else { return nil }
            var out: [String: StampedDigest] = [:]
            for _ in 0..<count {
                guard let path = string(), let stamp = stamp(), let sha = digest() else { return nil }
                out[path] = StampedDigest(stamp: stamp, sha256: sha)
            }
            return out
        }
    }
}
