import Foundation

extension CatalogEntry {
    /// True when `other` encodes to the same bytes: `==` (every stored field, so a field added
    /// later is compared too) and every text field byte for byte. Swift's `String ==` is Unicode
    /// canonical equivalence (`"é"` precomposed equals `e` + U+0301), which JSON spells with other
    /// bytes; a republish that compared by `==` alone would keep a part holding the old spelling.
    /// What `CatalogPartition` compares a republish's entries with the previous version's by,
    /// instead of encoding each as JSON (docs/format.md "What a republish builds").
    public func isIdentical(to other: CatalogEntry) -> Bool {
        guard self == other else { return false }
        func same(_ a: String, _ b: String) -> Bool { Self.sameUTF8(a, b) }
        func same(_ a: String?, _ b: String?) -> Bool { a.map { x in b.map { same(x, $0) } ?? false } ?? (b == nil) }
        func same(_ a: BundleRef?, _ b: BundleRef?) -> Bool { same(a?.path, b?.path) }
        guard same(id, other.id), same(title, other.title), same(description, other.description), same(language, other.language),
              same(license, other.license), same(tier, other.tier), same(bundle, other.bundle), same(embedder.id, other.embedder.id),
              same(embedder.encoding, other.embedder.encoding), same(channel, other.channel), same(payload, other.payload),
              same(rollout?.start, other.rollout?.start), same(rollout?.duration, other.rollout?.duration) else { return false }
        // `==` above made the delta lists equal in length.
        for (a, b) in zip(deltas ?? [], other.deltas ?? []) where !same(a.path, b.path) || !same(a.payload, b.payload) { return false }
        return true
    }

    /// The stored fields `isIdentical` knows (a test counts `CatalogEntry`'s with `Mirror`, so a
    /// field added without a look at `isIdentical` fails it).
    public static let fieldsComparedExactly = 18

    static func sameUTF8(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) } }
    }
}
