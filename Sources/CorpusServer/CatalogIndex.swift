import Foundation
import Synchronization
import CorpusFormat

/// Which corpus each bundle file belongs to, read from the tree's catalogs, so the server knows
/// which downloads need an entitlement.
///
/// Every `catalogs/N.json` in the tree is indexed, not only the current one: bundles are named by
/// content hash and stay in place so that a client still reading an older catalog can finish, and
/// such a download must be gated as that catalog said. When catalogs disagree about a bundle, the
/// newest catalog that lists it decides (by catalog version): the publisher's latest word on a
/// corpus turned free, or turned entitled, wins over what an older catalog still in the tree says,
/// while a bundle only older catalogs list keeps the rule of the newest of those. A file under
/// `bundles/` that no catalog lists is not served at all (404): a stray or half-copied upload is
/// never exposed ungated. The index is rebuilt when `catalog.json` or the `catalogs/` folder
/// changes, checked at most once per `checkInterval`, and again at once when a bundle is not listed
/// (it may have been published since) or listed as free (a newer catalog may gate it); catalogs,
/// being immutable, are parsed once each.
///
/// A catalog version that has a top document (`catalogs/N.top.json`) is indexed from its trie of
/// parts, never from its flat `catalogs/N.json`: the parts hold the same entries (both are written
/// from one catalog by one publish), the flat file of a 100,000-entry catalog is about 69 MB,
/// more than the index reads of one file (`maxCatalogBytes`), and parts are read once each by
/// hash, so a new version costs the parts it changed, not the catalog's size. Flat catalogs are
/// read only for versions without a top document (trees published before parts existed).
final class CatalogIndex: Sendable {
    /// One corpus entry a bundle belongs to.
    struct Owner: Equatable, Sendable {
        let corpus: String
        let access: Access
        let tier: String?
    }

    struct Snapshot: Sendable {
        /// The catalog id from `catalog.json` (or, failing that, from the catalogs): a token's audience.
        var catalogID: String?
        var bundles: [String: [Owner]]
        /// Every other file a catalog names: embedder artifacts (public, gated by nothing).
        var artifacts: Set<String> = []

        func owners(ofBundle path: String) -> [Owner]? { bundles[path] }

        /// Whether some catalog of the tree names `path` (a bundle, a delta or an embedder artifact).
        func lists(_ path: String) -> Bool { bundles[path] != nil || artifacts.contains(path) }
    }

    private struct State {
        var snapshot = Snapshot(catalogID: nil, bundles: [:])
        var lastCheck: ContinuousClock.Instant?
        var pointerIdentity: FileIdentity?
        var folderIdentity: FileIdentity?
        /// Parsed catalogs by file name, with the identity they had when parsed.
        var parsed: [String: ParsedCatalog] = [:]
        /// Parsed top documents by file name.
        var tops: [String: ParsedTop] = [:]
        /// Catalog parts read so far, by reference: immutable, shared by the versions that name them.
        var parts: [PartRef: IndexedPart] = [:]
    }

    /// What the index keeps of one top document (`catalogs/N.top.json`).
    private struct ParsedTop {
        let identity: FileIdentity
        let id: String
        let version: Int
        let parts: CatalogParts
        let artifacts: [String]
    }

    /// What the index keeps of one catalog part: a node's children, or a leaf's entries as owners
    /// by bundle path.
    private enum IndexedPart {
        case node([PartRef])
        case leaf([String: [Owner]])
    }

    /// What the index keeps of one catalog file.
    private struct ParsedCatalog {
        let identity: FileIdentity
        let id: String
        let version: Int
        /// Every entry naming a bundle, by bundle path (two entries may share one file).
        let owners: [String: [Owner]]
        /// The embedder artifacts it names.
        let artifacts: [String]
    }

    static let maxCatalogBytes: Int64 = 64 << 20
    /// The largest top document read (a client reads at most 64 KiB of one).
    static let maxTopBytes: Int64 = 1 << 20

    private let served: ServedTree
    private let checkInterval: Duration
    private let state = Mutex(State())

    init(served: ServedTree, checkInterval: Duration = .seconds(1)) {
        self.served = served
        self.checkInterval = checkInterval
    }

    /// The current index, re-reading the tree first if it may have changed. `recheck` looks at
    /// the tree even within `checkInterval` (two `stat`s; a rebuild only if something changed).
    func current(recheck: Bool = false) -> Snapshot {
        let now = ContinuousClock.now
        return state.withLock { s in
            if !recheck, let last = s.lastCheck, now - last < checkInterval { return s.snapshot }
            let first = s.lastCheck == nil
            s.lastCheck = now
            // A tree swapped in for the old one differs here too (other inodes), and is rebuilt from.
            let tree = served.current().tree
            let pointer = tree.identity([TreeLayout.pointer])
            let folder = tree.identity(["catalogs"])
            if !first, pointer == s.pointerIdentity, folder == s.folderIdentity { return s.snapshot }
            s.pointerIdentity = pointer
            s.folderIdentity = folder
            rebuild(&s, tree)
            return s.snapshot
        }
    }

    /// Forgets every parsed catalog and reads the tree again now (SIGHUP).
    func reload() {
        let tree = served.current().tree
        state.withLock { s in
            s.parsed = [:]
            s.lastCheck = .now
            s.pointerIdentity = tree.identity([TreeLayout.pointer])
            s.folderIdentity = tree.identity(["catalogs"])
            rebuild(&s, tree)
        }
    }

    /// Reads the catalogs of `tree`, one opening of the folder throughout.
    private func rebuild(_ s: inout State, _ tree: StaticTree) {
        var pointerID: String?
        var currentName: String?
        if let (data, _) = tree.read([TreeLayout.pointer], limit: 1 << 20),
           let p = try? JSONDecoder().decode(CatalogPointer.self, from: data), Identifier.isValid(p.id) {
            pointerID = p.id
            let parts = p.path.split(separator: "/")
            if parts.count == 2, parts[0] == "catalogs" { currentName = String(parts[1]) }
        }
        var seen = Set<String>()
        let names = tree.list("catalogs")
        for name in names where name.hasSuffix(TreeLayout.topSuffix) {
            seen.insert(name)
            guard let identity = tree.identity(["catalogs", name]) else { continue }
            if let cached = s.tops[name], cached.identity == identity { continue }
            guard let (data, identity) = tree.read(["catalogs", name], limit: Self.maxTopBytes),
                  let top = try? Catalog.decode(data), let parts = top.parts,
                  TreeLayout.topPath(version: top.version) == "catalogs/\(name)" else { s.tops[name] = nil; continue }
            s.tops[name] = ParsedTop(identity: identity, id: top.id, version: top.version, parts: parts,
                                     artifacts: (top.embedders ?? []).map(\.artifact.path))
        }
        let topVersions = Set(s.tops.values.map(\.version))
        for name in names where name.hasSuffix(".json") && !name.hasSuffix(TreeLayout.topSuffix) {
            if let n = Int(name.dropLast(5)), topVersions.contains(n) { continue }
            seen.insert(name)
            guard let identity = tree.identity(["catalogs", name]) else { continue }
            if let cached = s.parsed[name], cached.identity == identity { continue }
            guard let (data, identity) = tree.read(["catalogs", name], limit: Self.maxCatalogBytes),
                  let catalog = try? Catalog.decode(data) else { s.parsed[name] = nil; continue }
            s.parsed[name] = ParsedCatalog(identity: identity, id: catalog.id, version: catalog.version, owners: Self.owners(of: catalog.corpora),
                                           artifacts: (catalog.embedders ?? []).map(\.artifact.path))
        }
        for name in s.parsed.keys where !seen.contains(name) { s.parsed[name] = nil }
        for name in s.tops.keys where !seen.contains(name) { s.tops[name] = nil }
        let fallbackID = currentName.flatMap { s.parsed[$0]?.id } ?? s.parsed.values.first?.id ?? s.tops.values.first?.id
        var newest: [String: (version: Int, owners: [Owner])] = [:]
        for catalog in s.parsed.values { Self.merge(catalog.owners, version: catalog.version, into: &newest) }
        indexParts(&s, tree, into: &newest)
        s.snapshot = Snapshot(catalogID: pointerID ?? fallbackID, bundles: newest.mapValues(\.owners),
                              artifacts: Set(s.parsed.values.flatMap(\.artifacts) + s.tops.values.flatMap(\.artifacts)))
    }

    /// Merges the entries of every top document's parts into `newest`, newest version first. A
    /// subtree a newer version already named (same reference) is skipped: its entries are merged
    /// already, at a newer version, so an older version adds only the subtrees it does not share,
    /// and parts no top names any more are forgotten. A part that is missing or does not match
    /// its reference leaves its entries unlisted (their bundles are not served: 404) and is read
    /// again at the next rebuild.
    private func indexParts(_ s: inout State, _ tree: StaticTree, into newest: inout [String: (version: Int, owners: [Owner])]) {
        var visited = Set<PartRef>()
        for top in s.tops.values.sorted(by: { $0.version > $1.version }) {
            var stack = [top.parts.root]
            while let ref = stack.popLast() {
                guard visited.insert(ref).inserted else { continue }
                if s.parts[ref] == nil, let part = Self.readPart(ref, tree) { s.parts[ref] = part }
                switch s.parts[ref] {
                case .node(let children): stack.append(contentsOf: children)
                case .leaf(let owners): Self.merge(owners, version: top.version, into: &newest)
                case nil: continue
                }
            }
        }
        s.parts = s.parts.filter { visited.contains($0.key) }
    }

    private static func readPart(_ ref: PartRef, _ tree: StaticTree) -> IndexedPart? {
        guard ref.size <= CatalogPart.maxStoredBytes, let (data, _) = tree.read(ref.path.split(separator: "/").map(String.init), limit: ref.size),
              let part = try? CatalogPart.decode(stored: data, ref: ref) else { return nil }
        switch part.kind {
        case .node: return .node(Array((part.children ?? [:]).values))
        case .leaf: return .leaf(owners(of: part.entries ?? []))
        }
    }

    /// Every entry naming a bundle or delta, by path (two entries may share one file).
    private static func owners(of entries: [CatalogEntry]) -> [String: [Owner]] {
        var owners: [String: [Owner]] = [:]
        for e in entries {
            let owner = Owner(corpus: e.id, access: e.access, tier: e.tier)
            owners[e.bundle.path, default: []].append(owner)
            // A delta holds passages of the version it leads to: the same entry gates it.
            for d in e.deltas ?? [] { owners[d.path, default: []].append(owner) }
        }
        return owners
    }

    /// Merges one catalog version's owners into `newest`: for each bundle, the entries of the
    /// newest catalog (highest version) that lists it. Two files claiming one version (which
    /// `corpusd publish` never writes) are merged, so that the stricter of them still gates the bundle.
    private static func merge(_ owners: [String: [Owner]], version: Int, into newest: inout [String: (version: Int, owners: [Owner])]) {
        for (path, owners) in owners {
            guard let held = newest[path], held.version >= version else {
                newest[path] = (version, owners)
                continue
            }
            if held.version == version {
                newest[path] = (held.version, held.owners + owners.filter { !held.owners.contains($0) })
            }
        }
    }
}
