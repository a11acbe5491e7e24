import Foundation

/// Reads the entries of chosen corpus ids (or every entry reachable) out of a catalog's trie of
/// parts, one part at a time, as a state machine: the caller fetches `next` (from a cache or the
/// network) and hands its stored bytes to `provide`. No I/O here.
///
/// Every part is checked before it is read: its size and SHA-256 against the reference its
/// parent (ultimately the signed top document) holds, then one whole gzip member of canonical
/// JSON whose kind and prefix are the ones that place says. A leaf may hold only entries whose
/// key starts with its prefix. So a part of another catalog version, of another place in the
/// trie, or altered in any byte is refused; the signed top document decides everything.
public struct CatalogPartWalk: Sendable {
    public let parts: CatalogParts
    /// The keys of the ids asked for; nil: every entry reachable.
    private let keys: [String]?
    private let ids: Set<String>?
    private var stack: [(ref: PartRef, prefix: String)]
    public private(set) var entries: [CatalogEntry] = []
    /// The parts read, with their stored bytes, in the order read.
    public private(set) var read: [(ref: PartRef, stored: Data)] = []

    public init(parts: CatalogParts, ids: Set<String>?) {
        self.parts = parts
        self.ids = ids
        self.keys = ids.map { $0.map(CatalogPart.key(of:)) }
        // No id asked for: nothing to read, not even the root (`corpus catalog` with nothing installed).
        self.stack = ids?.isEmpty == true ? [] : [(parts.root, "")]
    }

    /// The part to provide next, nil when the walk is done.
    public var next: PartRef? { stack.last?.ref }

    /// Hands over the stored bytes of `next`; nil when the caller does not have them (a local
    /// read of what was cached): that subtree is skipped.
    public mutating func provide(_ stored: Data?) throws {
        guard let (ref, prefix) = stack.popLast() else { return }
        guard let stored else { return }
        let what = ref.path
        let part = try CatalogPart.decode(stored: stored, ref: ref)
        guard part.prefix == prefix else { throw FormatError.malformed(what: what, reason: "it is the part of prefix \(part.prefix.debugDescription), its place is \(prefix.debugDescription)") }
        read.append((ref, stored))
        if prefix.count < parts.depth {
            guard part.kind == .node, let children = part.children, part.entries == nil else {
                throw FormatError.malformed(what: what, reason: "a leaf where the trie has a node (prefix \(prefix.debugDescription))")
            }
            for (digit, child) in children.sorted(by: { $0.key > $1.key }) {
                guard digit.utf8.count == 1, let b = digit.utf8.first, Hex.isLowerDigit(b) else {
                    throw FormatError.malformed(what: what, reason: "child \(digit.debugDescription) is not one lower-case hex digit")
                }
                let childPrefix = prefix + digit
                if let keys, !keys.contains(where: { $0.hasPrefix(childPrefix) }) { continue }
                stack.append((child, childPrefix))
            }
        } else {
            guard part.kind == .leaf, let list = part.entries, part.children == nil else {
                throw FormatError.malformed(what: what, reason: "a node where the trie has a leaf (prefix \(prefix.debugDescription))")
            }
            for e in list {
                guard CatalogPart.key(of: e.id).hasPrefix(prefix) else {
                    throw FormatError.malformed(what: what, reason: "entry \(e.id) does not belong in the leaf of prefix \(prefix)")
                }
                if ids == nil || ids!.contains(e.id) { entries.append(e) }
            }
        }
    }

    /// Walks with a synchronous source of stored bytes (a cache folder): nil skips a subtree.
    public static func entries(of parts: CatalogParts, ids: Set<String>?, source: (PartRef) throws -> Data?) throws -> CatalogPartWalk {
        var walk = CatalogPartWalk(parts: parts, ids: ids)
        while let ref = walk.next { try walk.provide(try source(ref)) }
        return walk
    }
}
