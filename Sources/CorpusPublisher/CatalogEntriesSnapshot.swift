import Foundation
import CorpusFormat

/// `PUBLIC_DIR/.catalog-entries`: the entries of the version the publisher wrote last, in binary,
/// with that version's number and trie root. The next publish's history check reads the newest
/// version from it instead of from its parts: inflating and decoding the 6,000 parts of a
/// 100,000-entry catalog was a third of a republish that changed one corpus. It is used only
/// when its version and root are those of the newest top document and of the parts record
/// (`.catalog-parts`); otherwise, or when it does not read, the parts are read as before. A
/// dotfile like `.build-cache`: no catalog names it, and servers, mirrors and uploads skip it.
///
/// Layout (`BinaryWriter`): magic `corpus-catalog-entries 1\n`, version (i64), root (SHA-256,
/// size i64), count (u32), then each entry's fields in `CatalogEntry`'s order: id, version,
/// title, description, language, license, access, tier?, bundled, bundle, documents, passages,
/// embedder (id, dimension, encoding, digest?), content, deltas?, channel?, rollout? (start,
/// duration), payload?. Strings are stored as they were given, byte for byte: the entries'
/// comparison (`CatalogEntry.isIdentical`) tells Unicode forms apart, and so must this copy.
enum CatalogEntriesSnapshot {
    static let fileName = ".catalog-entries"
    static let magic = Array("corpus-catalog-entries 1\n".utf8)

    static func encode(version: Int, root: PartRef, entries: [CatalogEntry]) -> Data {
        var w = BinaryWriter(capacity: entries.count * 512)
        w.raw(magic)
        w.int(version)
        w.digest(root.digest)
        w.int64(root.size)
        w.u32(entries.count)
        for e in entries { w.catalogEntry(e) }
        return w.data
    }

    /// The entries, when `data` is a whole snapshot of `version` with `root`.
    static func decode(_ data: Data, version: Int, root: PartRef) -> [CatalogEntry]? {
        data.withUnsafeBytes { raw -> [CatalogEntry]? in
            var r = BinaryReader(raw)
            guard r.take(magic.count).map(Array.init) == magic, r.int() == version, r.digest() == root.digest, r.int64() == root.size,
                  let count = r.u32() else { return nil }
            var out: [CatalogEntry] = []
            out.reserveCapacity(count)
            for _ in 0..<count {
                guard let e = r.catalogEntry() else { return nil }
                out.append(e)
            }
            return r.atEnd ? out : nil
        }
    }

    static func write(version: Int, root: PartRef, entries: [CatalogEntry], tree: String) throws {
        try FileIO.writeAtomically(encode(version: version, root: root, entries: entries), to: "\(tree)/\(fileName)")
    }

    static func read(tree: String, version: Int, root: PartRef) -> [CatalogEntry]? {
        FileManager.default.contents(atPath: "\(tree)/\(fileName)").flatMap { decode($0, version: version, root: root) }
    }
}

extension BinaryWriter {
    mutating func catalogEntry(_ e: CatalogEntry) {
        for s in [e.id, e.version.description, e.title, e.description, e.language, e.license, e.access.rawValue] { string(s) }
        optional(e.tier) { $0.string($1) }
        bool(e.bundled)
        bundle(e.bundle)
        int(e.documents)
        int(e.passages)
        embedder(e.embedder)
        digest(e.content)
        optional(e.deltas) { w, deltas in
            w.u32(deltas.count)
            for d in deltas { w.deltaRef(d) }
        }
        optional(e.channel) { $0.string($1) }
        optional(e.rollout) { w, r in
            w.string(r.start)
            w.string(r.duration)
        }
        optional(e.payload) { $0.bundle($1) }
    }
}

extension BinaryReader {
    mutating func catalogEntry() -> CatalogEntry? {
        guard let id = string(), let version = version(), let title = string(), let description = string(),
              let language = string(), let license = string(), let access = string().flatMap(Access.init(rawValue:)),
              let tier = optional({ $0.string() }), let bundled = bool(), let bundle = bundle(),
              let documents = int(), let passages = int(),
              let embedder = embedder(),
              let content = digest(),
              let deltas = optional({ r -> [DeltaRef]? in
                  guard let n = r.u32() else { return nil }
                  var out: [DeltaRef] = []
                  for _ in 0..<n {
                      guard let d = r.deltaRef() else { return nil }
                      out.append(d)
                  }
                  return out
              }),
              let channel = optional({ $0.string() }),
              let rollout = optional({ r -> Rollout? in
                  guard let start = r.string(), let duration = r.string() else { return nil }
                  var rollout = Rollout(start: Date(timeIntervalSince1970: 0), duration: duration)
                  rollout.start = start
                  return rollout
              }),
              let payload = optional({ $0.bundle() }) else { return nil }
        var e = CatalogEntry(id: id, version: version, title: title, description: description, language: language, license: license,
                             access: access, tier: tier, bundled: bundled, bundle: bundle, documents: documents, passages: passages,
                             embedder: embedder,
                             content: content)
        e.deltas = deltas
        e.channel = channel
        e.rollout = rollout
        e.payload = payload
        return e
    }
}
