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
        for name in tree.list("catalogs") where name.hasSuffix(".json") {
            seen.insert(name)
            guard let identity = tree.identity(["catalogs", name]) else { continue }
            if let cached = s.parsed[name], cached.identity == identity { continue }
            guard let (data, identity) = tree.read(["catalogs", name], limit: Self.maxCatalogBytes),
                  let catalog = try? Catalog.decode(data) else { s.parsed[name] = nil; continue }
            var owners: [String: [Owner]] = [:]
            for e in catalog.corpora {
                let owner = Owner(corpus: e.id, access: e.access, tier: e.tier)
                owners[e.bundle.path, default: []].append(owner)
                // A delta holds passages of the version it leads to: the same entry gates it.
                for d in e.deltas ?? [] { owners[d.path, default: []].append(owner) }
            }
            s.parsed[name] = ParsedCatalog(identity: identity, id: catalog.id, version: catalog.version, owners: owners,
                                           artifacts: (catalog.embedders ?? []).map(\.artifact.path))
        }
        for name in s.parsed.keys where !seen.contains(name) { s.parsed[name] = nil }
        let fallbackID = currentName.flatMap { s.parsed[$0]?.id } ?? s.parsed.values.first?.id
        s.snapshot = Snapshot(catalogID: pointerID ?? fallbackID, bundles: Self.newestOwners(Array(s.parsed.values)),
                              artifacts: Set(s.parsed.values.flatMap(\.artifacts)))
    }

    /// For each bundle, the entries of the newest catalog (highest version) that lists it. Two
    /// files claiming one version (which `corpusd publish` never writes) are merged, so that the
    /// stricter of them still gates the bundle.
    private static func newestOwners(_ catalogs: [ParsedCatalog]) -> [String: [Owner]] {
        var newest: [String: (version: Int, owners: [Owner])] = [:]
        for catalog in catalogs {
            for (path, owners) in catalog.owners {
                guard let held = newest[path], held.version >= catalog.version else {
                    newest[path] = (catalog.version, owners)
                    continue
                }
                if held.version == catalog.version {
                    newest[path] = (held.version, held.owners + owners.filter { !held.owners.contains($0) })
                }
            }
        }
        return newest.mapValues(\.owners)
    }
}
