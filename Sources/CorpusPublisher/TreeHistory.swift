import Foundation
import CorpusFormat

/// What a published tree has already promised its clients, read from its pointer and every signed
/// catalog it still holds (`catalogs/<N>.json`; a publish never removes them): the catalog's id,
/// the highest catalog version, and every corpus version with the content it named.
///
/// A publish may not take any of it back (TUF's version rules, applied by the publisher so that
/// no client gets stuck): the catalog id stays, a corpus version names one content for good, and
/// a corpus's versions only go up. A client that installed `tides` 1 never looks at `tides` 1
/// again, so other content under that version would never reach it.
struct TreeHistory {
    /// The highest catalog version in the tree (0 for a new tree): the pointer's, or a higher
    /// `catalogs/<N>.json` left by a publish that stopped before replacing the pointer.
    private(set) var latestVersion = 0
    /// The id clients know the tree by: the pointer's, else the newest catalog's.
    private(set) var catalogID: String?
    /// Per corpus id, every version published with its content digest and the newest catalog listing it.
    private(set) var corpora: [String: [CorpusVersion: (content: SHA256Digest, catalog: Int)]] = [:]
    /// Per corpus id and channel, every version published as that channel's current one (without a
    /// rollout), with the newest catalog listing it: the floor a channel's versions may not go
    /// below. A version published only with a rollout sets no floor, so a halt (the rollout's
    /// entry removed) is a publish like any other.
    private(set) var current: [String: [String: [CorpusVersion: Int]]] = [:]
    /// Every entry of the newest version, when it was read whole through its top document's trie:
    /// what the catalog writer compares the next version's entries with (`CatalogPreviousEntries`,
    /// tied to that version and trie root), read here anyway.
    private(set) var newestEntries: CatalogPreviousEntries?
    /// Per corpus id, the versions the catalogs unexpired at `now` list, newest version first: what
    /// a new version's deltas may lead from (`DeltaPublisher`), gathered in the same read.
    private(set) var deltaBases: [String: [DeltaPublisher.Published]] = [:]
    /// True when the newest version was read from `CatalogEntriesSnapshot`, not from its parts.
    private(set) var newestFromSnapshot = false

    static func load(tree: String, now: Date = Date()) throws -> TreeHistory {
        var history = TreeHistory()
        let pointerPath = "\(tree)/\(TreeLayout.pointer)"
        if let data = FileManager.default.contents(atPath: pointerPath) {
            guard let pointer = try? JSONDecoder().decode(CatalogPointer.self, from: data), pointer.version >= 1 else {
                throw PublisherError.invalidTree(path: TreeLayout.pointer, reason: "not a catalog pointer")
            }
            history.latestVersion = pointer.version
            history.catalogID = pointer.id
        }
        var newestID: String?
        let published = PublishedTree(root: tree)
        let versions = published.publishedVersions()
        history.latestVersion = max(history.latestVersion, versions.last ?? 0)
        // Newest first, each version through what it changed (parts it shares with a newer one are
        // read once): an entry keeps the newest version that lists it. Only the signed catalogs
        // the publisher wrote count; a damaged one promised nothing readable.
        var first = true
        func visit(version: Int, header: Catalog, entries: [CatalogEntry]) {
            // The first version given is read whole (nothing newer shares its parts).
            if first, let parts = header.parts { history.newestEntries = CatalogPreviousEntries(version: version, root: parts.root, entries: entries) }
            first = false
            if newestID == nil { newestID = header.id }
            let unexpired = header.expiryDate.map { $0 > now } ?? false
            for e in entries {
                if unexpired, !(history.deltaBases[e.id] ?? []).contains(where: { $0.version == e.version }) {
                    history.deltaBases[e.id, default: []].append(.init(version: e.version, content: e.content, bundle: e.bundle))
                }
                if history.corpora[e.id]?[e.version] == nil { history.corpora[e.id, default: [:]][e.version] = (e.content, version) }
                if e.rollout == nil, history.current[e.id]?[e.channelName]?[e.version] == nil {
                    history.current[e.id, default: [:]][e.channelName, default: [:]][e.version] = version
                }
            }
        }
        // The newest version from the publisher's own copy of its entries when that copy, the
        // parts record and the top document all name the same version and root; the older
        // versions then skip the parts the record names, as they would after reading them.
        if let newest = versions.last, let record = CatalogPartRecordFile.load(tree: tree), record.version == newest,
           let top = published.readTop(newest), let parts = top.parts, parts.root == record.root, parts.depth == record.depth,
           let entries = CatalogEntriesSnapshot.read(tree: tree, version: newest, root: parts.root) {
            visit(version: newest, header: top, entries: entries)
            published.forEachVersion(Array(versions.dropLast()), current: record) { visit(version: $0.version, header: $0.header, entries: $0.entries) }
            history.newestFromSnapshot = true
        } else {
            published.forEachVersion(versions) { visit(version: $0.version, header: $0.header, entries: $0.entries) }
        }
        history.deltaBases = history.deltaBases.mapValues { $0.sorted { $0.version > $1.version } }
        if history.catalogID == nil { history.catalogID = newestID }
        return history
    }

    /// Refuses a catalog id other than the one the tree serves.
    func checkCatalogID(_ id: String, tree: String) throws {
        if let published = catalogID, published != id {
            throw PublisherError.catalogIDChanged(tree: tree, published: published, catalog: id)
        }
    }

    /// Refuses a corpus version that is neither above the highest the tree published as current on
    /// `channel` for that corpus nor that very version (`1.0` after `1` compares equal, so clients
    /// would not see it as new). Checked before building: it needs no content.
    func checkVersion(corpus id: String, channel: String = ChannelRules.defaultChannel, version: CorpusVersion) throws {
        guard let highest = current[id]?[channel]?.max(by: { $0.key < $1.key }),
              !(version > highest.key), version.description != highest.key.description else { return }
        throw PublisherError.versionLowered(corpus: id, version: version.description, published: highest.key.description,
                                            catalogVersion: highest.value)
    }

    /// Refuses a corpus version the tree published with another content digest.
    func checkContent(corpus id: String, version: CorpusVersion, content: SHA256Digest) throws {
        guard let published = corpora[id]?[version], published.content != content else { return }
        throw PublisherError.versionReused(corpus: id, version: version.description, catalogVersion: published.catalog)
    }
}
