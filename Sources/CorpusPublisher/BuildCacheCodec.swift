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
        var w = BinaryWriter(capacity: corpora.count * 512)
        w.raw(magic)
        w.u32(corpora.count)
        for (key, e) in corpora.sorted(by: { $0.key < $1.key }) {
            w.string(key)
            w.string(e.inputs)
            w.bundle(e.bundle)
            let m = e.manifest
            for s in [m.id, m.version.description, m.title, m.description, m.language, m.license] { w.string(s) }
            w.embedder(m.embedder)
            w.int(m.documents)
            w.int(m.passages)
            w.digest(m.content)
            w.u8(e.sourceBundled.map { $0 ? 2 : 1 } ?? 0)
            w.optional(e.deltas) { w, deltas in
                w.u32(deltas.count)
                for d in deltas {
                    w.deltaRef(d.ref)
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
            var r = BinaryReader(raw)
            guard r.take(magic.count).map(Array.init) == magic, let count = r.u32() else { return nil }
            var out: [String: BuildCache.Entry] = [:]
            out.reserveCapacity(count)
            for _ in 0..<count {
                guard let key = r.string(), let entry = r.cacheEntry(), out.updateValue(entry, forKey: key) == nil else { return nil }
            }
            return r.atEnd ? out : nil
        }
    }
}

extension BinaryWriter {
    mutating func stamp(_ s: FileStamp) {
        uint64(s.device)
        uint64(s.inode)
        int64(s.size)
        int64(s.modified)
        int64(s.changed)
    }
}

extension BinaryReader {
    mutating func stamp() -> FileStamp? {
        guard let device = uint64(), let inode = uint64(), let size = int64(), let modified = int64(), let changed = int64() else { return nil }
        return FileStamp(device: device, inode: inode, size: size, modified: modified, changed: changed)
    }

    mutating func cacheEntry() -> BuildCache.Entry? {
        guard let inputs = string(), let bundle = bundle(),
              let id = string(), let version = version(), let title = string(), let description = string(),
              let language = string(), let license = string(),
              let embedder = embedder(),
              let documents = int(), let passages = int(), let content = digest(),
              let bundled = u8(), bundled <= 2,
              let deltas = optional({ $0.cachedDeltas() }),
              let sources = optional({ $0.sources() }),
              let bundleStamp = optional({ $0.stamp() }) else { return nil }
        let manifest = CachedManifest(id: id, version: version, title: title, description: description, language: language,
                                      license: license, embedder: embedder,
                                      documents: documents, passages: passages, content: content)
        return BuildCache.Entry(inputs: inputs, bundle: bundle, manifest: manifest, sourceBundled: bundled == 0 ? nil : bundled == 2,
                                deltas: deltas, sources: sources, bundleStamp: bundleStamp)
    }

    mutating func cachedDeltas() -> [BuildCache.CachedDelta]? {
        guard let count = u32() else { return nil }
        var out: [BuildCache.CachedDelta] = []
        for _ in 0..<count {
            guard let ref = deltaRef(), let base = digest(), let target = digest() else { return nil }
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
