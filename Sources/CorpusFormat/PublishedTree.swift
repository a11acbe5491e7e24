import Foundation

/// A published tree on disk (docs/format.md "Published tree"), as the publisher writes it and the
/// mirror copies it: what both read back from it, and the one garbage collection both run.
public struct PublishedTree: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The versions of the signed catalogs the tree holds (`catalogs/<N>.json`, N ≥ 1), ascending.
    /// A name of any other shape is no catalog of the tree's: neither writer makes one.
    public func catalogVersions() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/catalogs")) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(".json"), let n = Int(name.dropLast(5)), n >= 1, TreeLayout.catalogPath(version: n) == "catalogs/\(name)" else {
                return nil
            }
            return n
        }.sorted()
    }

    /// The catalog versions the tree holds in either form, ascending: a flat catalog, a top
    /// document, or both. A version too large for a flat catalog (`Catalog.maxFlatBytes`) has
    /// only its top document, and its promises count like any other's.
    public func publishedVersions() -> [Int] {
        Array(Set(catalogVersions()).union(topVersions())).sorted()
    }

    /// Removes the bundles, embedder artifacts and deltas that neither `keep` nor any unexpired
    /// catalog of the tree references, so that a client still reading an older catalog that is
    /// valid can finish. A delta is kept while a kept catalog lists it and some kept catalog still
    /// lists the version it leads from: it goes with the bundles it leads from. Returns the
    /// removed paths (relative to the tree), bundles first, each folder sorted. Older versions are
    /// read through `forEachVersion`, one at a time: what each changed, not every catalog whole.
    /// (Catalog parts go by their own rule: `removeUnreferencedParts`.)
    ///
    /// `current`, when given, is the record of `keep`'s top document as its writer just wrote it:
    /// the parts an older version shares with it, at the same place, are not read again.
    public func removeUnreferencedFiles(keep: Catalog, now: Date, current: CatalogPartRecordFile? = nil) -> [String] {
        /// A corpus version, as a pair (no text made for each entry of a large catalog).
        struct Listed: Hashable {
            var id: String
            var version: CorpusVersion
        }
        // What could go: the files the folders hold. Each entry is then looked up among them, so
        // nothing is made for each entry of a large catalog (no set of every bundle's path).
        var candidates = Set<String>()
        let folders = [("bundles", ".corpus.zip"), ("embedders", ".embedder.zip"), ("deltas", ".delta.zip"), ("payloads", ".age")]
        for (folder, suffix) in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(folder)")) ?? [] where name.hasSuffix(suffix) {
                candidates.insert("\(folder)/\(name)")
            }
        }
        guard !candidates.isEmpty else { return [] }
        // A first look by a number read from each path's bytes in place (no string hashed): only
        // a path whose number a file has is looked up among the files.
        let keys = Set(candidates.map(Self.quickKey))
        func held(_ path: String) -> Bool { keys.contains(Self.quickKey(path)) && candidates.contains(path) }
        var referenced = Set<String>()
        var deltas: [(from: Listed, paths: [String])] = []
        var kept: [[CatalogEntry]] = []
        func add(_ entries: [CatalogEntry], _ embedders: [CatalogEmbedder]?) {
            // By position, each field borrowed: `for e in entries` copied each entry, a retain and
            // a release of every string in it.
            entries.withUnsafeBufferPointer { entries in
                for i in entries.indices {
                    if held(entries[i].bundle.path) { referenced.insert(entries[i].bundle.path) }
                    if let payload = entries[i].payload, held(payload.path) { referenced.insert(payload.path) }
                    guard let list = entries[i].deltas else { continue }
                    for d in list {
                        let paths = ([d.path] + (d.payload.map { [$0.path] } ?? [])).filter(held)
                        if !paths.isEmpty { deltas.append((Listed(id: entries[i].id, version: d.fromVersion), paths)) }
                    }
                }
            }
            for m in embedders ?? [] { referenced.insert(m.artifact.path) }
            kept.append(entries)
        }
        add(keep.corpora, keep.embedders)
        // The parts of `keep`'s own top document hold the entries just added: not read again.
        let own: Set<PartRef> = current == nil ? partsNamed(byTopsOf: readTop(keep.version) == nil ? [] : [keep.version]) ?? [] : []
        // A catalog that no longer decodes promises nothing a client can read.
        forEachVersion(publishedVersions().filter { $0 != keep.version }, skipping: own, current: current,
                       include: { c in c.expiryDate.map { $0 > now } ?? false }) { add($0.entries, $0.header.embedders) }
        // A delta stays while a kept catalog lists the version it leads from.
        if !deltas.isEmpty {
            let from = Set(deltas.map(\.from))
            var listed = Set<Listed>()
            for entries in kept {
                for e in entries where from.contains(Listed(id: e.id, version: e.version)) { listed.insert(Listed(id: e.id, version: e.version)) }
            }
            for d in deltas where listed.contains(d.from) { referenced.formUnion(d.paths) }
        }
        var removed: [String] = []
        for (folder, _) in folders {
            for rel in candidates.filter({ $0.hasPrefix("\(folder)/") }).sorted() where !referenced.contains(rel) {
                FileIO.remove("\(root)/\(rel)")
                removed.append(rel)
            }
        }
        return removed
    }

    /// A number from a path's bytes: its length and the eight bytes 20 from its end (inside the
    /// SHA-256 hex of a bundle, delta, payload or artifact name), read in place. Equal paths have
    /// equal numbers; that is all `removeUnreferencedFiles` relies on.
    static func quickKey(_ path: String) -> UInt64 {
        path.utf8.withContiguousStorageIfAvailable { b -> UInt64 in
            var key = UInt64(b.count)
            for i in max(0, b.count - 20) ..< max(0, b.count - 12) { key = key &* 31 &+ UInt64(b[i]) }
            return key
        } ?? UInt64(path.utf8.count)
    }

    /// The versions whose top documents keep their parts: `current`, the newest older version
    /// with a top document whatever its expiry, and every version whose top document has not
    /// expired. A client or mirror that read an unexpired top document a moment before a publish
    /// still finds every part it names (it refuses an expired one anyway); the previous version
    /// is kept besides, so a publish after a lapse (every older catalog expired) never takes the
    /// parts from under a reader of the version it replaces, and a cache or CDN holding the
    /// previous top still finds its parts at the origin.
    public func retainedTopVersions(current: Int, now: Date) -> [Int] {
        let tops = topVersions()
        var kept = Set(tops.filter { $0 == current })
        if let previous = tops.last(where: { $0 < current }) { kept.insert(previous) }
        for version in tops where !kept.contains(version) && version < current {
            guard let top = readTop(version), let expiry = top.expiryDate, expiry > now else { continue }
            kept.insert(version)
        }
        return kept.sorted()
    }

    /// The versions of the top documents the tree holds (`catalogs/<N>.top.json`), ascending.
    public func topVersions() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/catalogs")) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(TreeLayout.topSuffix), let n = Int(name.dropLast(TreeLayout.topSuffix.count)), n >= 1,
                  TreeLayout.topPath(version: n) == "catalogs/\(name)" else { return nil }
            return n
        }.sorted()
    }

    /// The top document of `version` when it decodes and names a trie of parts.
    public func readTop(_ version: Int) -> Catalog? {
        guard let data = FileManager.default.contents(atPath: "\(root)/\(TreeLayout.topPath(version: version))"),
              let top = try? Catalog.decode(data), top.version == version, top.parts != nil else { return nil }
        return top
    }

    /// Every part the top documents of `versions` name, read from the tree: the trie's nodes only
    /// (a leaf's reference is in its parent), each subtree once however many versions share it,
    /// and the listing index with the listing parts it names. Nil when a retained top document,
    /// node or listing index cannot be read or does not match its reference: what it names is
    /// unknown, so nothing may be removed.
    ///
    /// `known`: parts already known to be named, each with every part below it (a version's
    /// whole set of parts as its writer built them): their subtrees are not read.
    public func partsNamed(byTopsOf versions: [Int], known: Set<PartRef> = []) -> Set<PartRef>? {
        var named = known
        for version in versions {
            guard let top = readTop(version), let parts = top.parts else { return nil }
            if let listing = top.listing, named.insert(listing.index).inserted {
                guard listing.index.size <= CatalogPart.maxStoredBytes,
                      let stored = FileManager.default.contents(atPath: "\(root)/\(listing.index.path)"),
                      let index = try? ListingDocument.index(stored: stored, ref: listing.index) else { return nil }
                named.formUnion(index.map(\.part))
            }
            var stack: [(ref: PartRef, depth: Int)] = [(parts.root, 0)]
            while let (ref, depth) = stack.popLast() {
                guard named.insert(ref).inserted, depth < parts.depth else { continue }
                guard ref.size <= CatalogPart.maxStoredBytes, let stored = FileManager.default.contents(atPath: "\(root)/\(ref.path)"),
                      let node = try? CatalogPart.decode(stored: stored, ref: ref), node.kind == .node else { return nil }
                for child in (node.children ?? [:]).values { stack.append((child, depth + 1)) }
            }
        }
        return named
    }

    /// Removes the parts (`parts/<sha256>.json.gz`) no retained top document names
    /// (`retainedTopVersions`); nothing when one of those cannot be read through. Returns the
    /// removed paths, sorted. Reads every part name in the tree: what a full build runs, and the
    /// mirror. `current`: the record of version `current`'s top document as its writer just wrote
    /// it, whose parts are then not read back.
    public func removeUnreferencedParts(current: Int, now: Date, record: CatalogPartRecordFile? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/parts")) ?? []
        let known = record.map { $0.version == current ? $0.parts : [] } ?? []
        guard !names.isEmpty, let named = partsNamed(byTopsOf: retainedTopVersions(current: current, now: now), known: known) else { return [] }
        // By digest (the hex a part's name starts with), not by path: no text made for each of the
        // tree's parts (about 56,000 at 100,000 entries).
        let keep = Set(named.lazy.map(\.digest))
        var removed: [String] = []
        for name in names where name.hasSuffix(".json.gz") {
            if let digest = SHA256Digest(hex: String(name.dropLast(8))), keep.contains(digest) { continue }
            let rel = "parts/\(name)"
            FileIO.remove("\(root)/\(rel)")
            removed.append(rel)
        }
        return removed.sorted()
    }

    /// After a republish that looked only at what changed (`CatalogPartUpdate`): removes the parts
    /// the record's replaced parts list (parts earlier versions named and later ones did not) once
    /// no retained top document (`retainedTopVersions`) of the versions that named them is left
    /// and the current version does not name them again, and drops them from the record. Looks at
    /// those parts only, never at the whole tree: a part no record lists (one a crash left, or
    /// one named before the record existed) waits for the next full build's
    /// `removeUnreferencedParts`. Returns the removed paths, sorted.
    ///
    /// `record`: the record the writer just wrote for the current version (not read back).
    public func removeReplacedParts(record: CatalogPartRecordFile, now: Date) -> [String] {
        var record = record
        let current = record.version
        let items = record.replaced
        guard !items.isEmpty else { return [] }
        let retained = retainedTopVersions(current: current, now: now)
        let listing = Set((0..<record.listingCount).map { record.listing(at: $0).part })
        func stillNamed(_ r: CatalogPartIndex.Replaced) -> Bool {
            if retained.contains(where: { $0 < r.until && $0 >= r.since }) { return true }
            switch r.place {
            case .leaf(let slot): return record.names(r.part, level: record.depth, slot: slot)
            case .node(let level, let slot): return record.names(r.part, level: level, slot: slot)
            case .listing: return listing.contains(r.part)
            case .listingIndex: return record.listingIndex == r.part
            }
        }
        // A part goes only when every place and span that named it is gone.
        let keep = Set(items.filter(stillNamed).map(\.part))
        var removed = Set<String>(), dropped = false
        for r in items where !keep.contains(r.part) {
            dropped = true
            // A part a full build's collection took already is dropped from the record, not reported.
            if FileIO.exists("\(root)/\(r.part.path)"), removed.insert(r.part.path).inserted { FileIO.remove("\(root)/\(r.part.path)") }
        }
        if dropped {
            record.setReplaced(items.filter { keep.contains($0.part) })
            try? record.write(tree: root)
        }
        return removed.sorted()
    }

    /// One catalog version as `forEachVersion` gives it: the signed document's fields (the top
    /// document's when the version has one: no entries), and the entries to read.
    public struct VersionEntries {
        public var version: Int
        public var header: Catalog
        /// Every entry of a flat catalog; of a version with parts, only the entries of the
        /// subtrees no newer version given (and no part in `skipping`) shares: identical entries,
        /// given already.
        public var entries: [CatalogEntry]
    }

    /// The entries of the catalog versions `versions`, newest first, each read from its top
    /// document's parts when it has one (a 100,000-entry flat catalog is about 69 MB; a version
    /// that changed one corpus shares all but `depth + 1` parts with the one before, so each
    /// older version costs what it changed), else from its flat catalog. A version whose parts
    /// cannot be read through is read from its flat catalog; one neither can be read from is
    /// left out (it promised nothing readable). Parts in `skipping` are not read: their entries
    /// are the caller's already (the catalog it holds in memory).
    /// `include` picks versions by their signed fields before any part is read: a version left
    /// out shares nothing with the ones after it.
    ///
    /// `current`: the record of the version the caller holds in memory (`CatalogPartRecordFile`):
    /// a part at the place where it names the same part is not read either.
    public func forEachVersion(_ versions: [Int], skipping: Set<PartRef> = [], current: CatalogPartRecordFile? = nil,
                               include: (Catalog) -> Bool = { _ in true }, _ body: (VersionEntries) -> Void) {
        var visited = skipping
        for version in versions.sorted(by: >) {
            let top = readTop(version)
            if let top, !include(top) { continue }
            if let top, let parts = top.parts, let entries = unsharedEntries(parts, visited: &visited, current: current?.depth == parts.depth ? current : nil) {
                body(VersionEntries(version: version, header: top, entries: entries))
                continue
            }
            guard let data = FileManager.default.contents(atPath: "\(root)/\(TreeLayout.catalogPath(version: version))"),
                  let c = try? Catalog.decode(data), include(c) else { continue }
            body(VersionEntries(version: version, header: c, entries: c.corpora))
        }
    }

    /// The entries of the subtrees of `parts` not in `visited`, which gains them; nil (and
    /// `visited` unchanged) when a part is missing or does not match its reference. Read a level
    /// at a time, each level's parts inflated and decoded on every core: reading the 6,000 parts
    /// of a 100,000-entry catalog one at a time was a sixth of a republish.
    private func unsharedEntries(_ parts: CatalogParts, visited: inout Set<PartRef>, current: CatalogPartRecordFile?) -> [CatalogEntry]? {
        var added = Set<PartRef>()
        var entries: [CatalogEntry] = []
        let root = self.root
        // Each part with its slot at its level (prefix digits).
        var level = [(ref: parts.root, slot: 0)]
        var depth = 0
        while !level.isEmpty {
            var wanted: [(ref: PartRef, slot: Int)] = []
            for p in level where !visited.contains(p.ref) && current?.names(p.ref, level: depth, slot: p.slot) != true && added.insert(p.ref).inserted {
                wanted.append(p)
            }
            let read = Workers.Slots<CatalogPart>(count: wanted.count)
            let refs = wanted.map(\.ref)
            Workers.forEach(refs.count, width: refs.count >= 16 ? Workers.all : 1) { i in
                let ref = refs[i]
                guard ref.size <= CatalogPart.maxStoredBytes, let stored = FileManager.default.contents(atPath: "\(root)/\(ref.path)"),
                      let part = try? CatalogPart.decode(stored: stored, ref: ref) else { return }
                read.set(i, part)
            }
            var next: [(ref: PartRef, slot: Int)] = []
            for (i, p) in wanted.enumerated() {
                guard let part = read.take(i) else { return nil }
                for (digit, child) in part.children ?? [:] { next.append((child, p.slot << 4 | (Int(digit, radix: 16) ?? 0))) }
                entries.append(contentsOf: part.entries ?? [])
            }
            level = next
            depth += 1
        }
        visited.formUnion(added)
        return entries
    }
}
