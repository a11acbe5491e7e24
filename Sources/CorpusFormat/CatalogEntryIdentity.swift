import Foundation

extension CatalogEntry {
    /// True when `other` encodes to the same bytes: every field compared, and every text field
    /// byte for byte. Swift's `String ==` is Unicode canonical equivalence (`"é"` precomposed
    /// equals `e` + U+0301), which JSON spells with other bytes; a republish that compared by `==`
    /// would keep a part holding the old spelling. What `CatalogPartition` compares a republish's
    /// entries with the previous version's by, instead of encoding each as JSON (docs/format.md
    /// "What a republish builds"). Field by field, not the synthesized `==` (which copied whole
    /// entries, a retain a field, at 100,000 entries a tenth of a republish); a test counts the
    /// fields (`fieldsComparedExactly`).
    public func isIdentical(to other: CatalogEntry) -> Bool {
        func same(_ a: String, _ b: String) -> Bool { Self.sameUTF8(a, b) }
        func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case let (x?, y?): return same(x, y)
            default: return false
            }
        }
        func same(_ a: BundleRef, _ b: BundleRef) -> Bool { a.digest == b.digest && a.size == b.size && same(a.path, b.path) }
        func same(_ a: BundleRef?, _ b: BundleRef?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case let (x?, y?): return same(x, y)
            default: return false
            }
        }
        guard same(id, other.id), same(version.description, other.version.description), same(title, other.title),
              same(description, other.description), same(language, other.language), same(license, other.license),
              access == other.access, same(tier, other.tier), bundled == other.bundled, same(bundle, other.bundle),
              documents == other.documents, passages == other.passages, content == other.content,
              embedder == other.embedder, same(embedder.id, other.embedder.id), same(embedder.encoding, other.embedder.encoding),
              same(channel, other.channel), rollout == other.rollout, same(rollout?.start, other.rollout?.start),
              same(rollout?.duration, other.rollout?.duration), same(payload, other.payload),
              deltas?.count == other.deltas?.count else { return false }
        for (a, b) in zip(deltas ?? [], other.deltas ?? []) where !(a == b && same(a.path, b.path) && same(a.payload, b.payload)) { return false }
        return true
    }

    /// The stored fields `isIdentical` knows (a test counts `CatalogEntry`'s with `Mirror`, so a
    /// field added without a look at `isIdentical` fails it).
    public static let fieldsComparedExactly = 18

    static func sameUTF8(_ a: String, _ b: String) -> Bool {
        // Borrowed, not copied: a native string's bytes are read in place (`withUTF8` needs a
        // mutable copy, a retain and a release a field, a fifth of a republish's comparison).
        if let same = a.utf8.withContiguousStorageIfAvailable({ x in
            b.utf8.withContiguousStorageIfAvailable { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }), let same { return same }
        return a.utf8.elementsEqual(b.utf8)
    }
}
