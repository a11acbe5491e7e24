import Foundation
import CorpusFormat

/// The OPDS view of a signed catalog, for e-book readers (KOReader, Thorium, calibre, Kiwix, the
/// Readium toolkits): under `opds/`, a navigation feed (`root`) leading to every corpus (`all`)
/// and to the corpora of each language (`lang-<code>`), each acquisition feed in pages of
/// `pageSize` entries, every feed twice: OPDS 1.2 (Atom, `.atom`) and OPDS 2.0 (JSON,
/// `.opds.json`). Each corpus appears once, at its stable channel's current version
/// (`ChannelSelection.stableCurrent`). Built from the catalog's entries alone, so it survives any change to how the
/// catalog is stored. The feeds are a view for readers: no client of ours reads them, and
/// nothing in them is signed; every bundle they link to is verified from the signed catalog.
public enum OPDSFeeds {
    public static let folder = "opds"
    public static let rootName = "root"
    public static let defaultPageSize = 50

    /// One feed of the tree: its name without the extension (`all-2`), what it lists.
    struct Feed {
        enum Kind { case navigation([NavigationItem]), acquisition(Page) }
        let name: String
        let title: String
        let kind: Kind
    }

    struct NavigationItem {
        let title: String
        let summary: String
        let feed: String        // the name of the first page it leads to
        let count: Int
        let series: String      // whose pages' dates make its own
    }

    /// One page of an acquisition feed: its entries, and the names of its neighbours.
    struct Page {
        let entries: ArraySlice<Listing>
        let number: Int
        let pages: Int
        let total: Int
        let pageSize: Int
        let series: String      // `all`, `lang-en`
        func name(_ n: Int) -> String { "\(series)-\(n)" }
    }

    /// What a feed shows of its catalog: the id (in every URN) and the title (author, root title).
    struct Source {
        let catalogID: String
        let catalogTitle: String
    }

    /// What a feed shows of a corpus: the only fields the renderers are given, so the digest of a
    /// page (`OPDSFeedState.digest`), which hashes every one, covers all its bytes but its date.
    struct Listing {
        let id: String
        let version: String
        let title: String
        let description: String
        let language: String
        let license: String
        let access: Access
        let bundlePath: String
        let bundleSize: Int64
    }

    /// The feeds of a catalog: the acquisition pages, and the root's items (dated from the pages).
    struct Plan {
        let source: Source
        let rootTitle: String
        let pages: [Feed]
        let navigation: [NavigationItem]

        /// The root feed, each item dated by the newest page of its series (`date(page name)`).
        func root(date: (String) -> String) -> (feed: Feed, dates: [String]) {
            var newest: [String: String] = [:]
            for page in pages {
                guard case let .acquisition(p) = page.kind else { continue }
                let d = date(page.name)
                if newest[p.series].map({ $0 < d }) ?? true { newest[p.series] = d }
            }
            return (Feed(name: rootName, title: rootTitle, kind: .navigation(navigation)), navigation.map { newest[$0.series] ?? "" })
        }
    }

    /// A feed's two files: OPDS 1.2 and OPDS 2.0. `itemDates` date a navigation feed's items in
    /// Atom; OPDS 2.0's navigation links have no date, only the feed's own `modified`.
    static func render(_ feed: Feed, _ source: Source, updated: String, itemDates: [String] = []) -> [(path: String, bytes: Data)] {
        [(path: "\(folder)/\(feed.name).atom", bytes: Data(OPDSAtom.render(feed, source, updated: updated, itemDates: itemDates).utf8)),
         (path: "\(folder)/\(feed.name).opds.json", bytes: OPDSJSON.render(feed, source, updated: updated))]
    }

    /// Writes the feeds into `tree/opds/` in proportion to what changed since the last publish
    /// (docs/operations.md "Serving the OPDS feeds"): a feed whose digest is the one the state
    /// (`OPDSFeedState`) recorded, and whose two files are there, is neither rendered nor
    /// written, and keeps its date; the others are written atomically, dated `catalog.issued`.
    /// Feed files an earlier publish left that this one no longer has (a catalog that shrank has
    /// fewer pages) are removed. Returns the paths written, relative to the tree.
    @discardableResult
    public static func write(_ catalog: Catalog, tree: String, pageSize: Int = defaultPageSize) throws -> [String] {
        let dir = "\(tree)/\(folder)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let plan = plan(catalog, pageSize: pageSize)
        let previous = OPDSFeedState.read(folder: dir)
        // One listing of the folder: whether a kept feed's files are there, and which are stale.
        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
        func intact(_ name: String) -> Bool { present.contains("\(name).atom") && present.contains("\(name).opds.json") }

        var next = OPDSFeedState()
        var pending: [(feed: Feed, updated: String, itemDates: [String])] = []
        for page in plan.pages {
            let digest = OPDSFeedState.digest(page, plan.source)
            let kept = previous?.pages[page.name].flatMap { $0.digest == digest ? $0 : nil }
            next.pages[page.name] = .init(digest: digest, date: kept?.date ?? catalog.issued)
            if kept == nil || !intact(page.name) { pending.append((page, next.pages[page.name]!.date, [])) }
        }
        let root = plan.root { next.pages[$0]?.date ?? catalog.issued }
        let rootUpdated = root.dates.max() ?? catalog.issued
        let rootDigest = OPDSFeedState.digest(root.feed, plan.source, itemDates: root.dates)
        next.pages[rootName] = .init(digest: rootDigest, date: rootUpdated)
        if previous?.pages[rootName]?.digest != rootDigest || !intact(rootName) { pending.append((root.feed, rootUpdated, root.dates)) }

        // The old state goes before the first feed changes: a publish that stops halfway leaves
        // no state, so the next one renders everything rather than trust a record of files that
        // are no longer what it says.
        let state = "\(dir)/\(OPDSFeedState.fileName)"
        let changed = next != previous
        if changed, present.contains(OPDSFeedState.fileName) {
            FileIO.remove(state)
            FileIO.syncDirectory(dir)
        }
        var written: [String] = []
        for p in pending {
            for file in render(p.feed, plan.source, updated: p.updated, itemDates: p.itemDates) {
                try FileIO.writeAtomically(file.bytes, to: "\(tree)/\(file.path)")
                written.append(file.path)
            }
        }
        if changed { try FileIO.writeAtomically(next.bytes(), to: state) }
        for name in present where (name.hasSuffix(".atom") || name.hasSuffix(".opds.json")) && next.pages[feedName(name)] == nil {
            FileIO.remove("\(dir)/\(name)")
        }
        return written
    }

    /// `all-2` of `all-2.atom` and of `all-2.opds.json`.
    static func feedName(_ file: String) -> String {
        String(file.dropLast(file.hasSuffix(".atom") ? ".atom".count : ".opds.json".count))
    }

    static func plan(_ catalog: Catalog, pageSize: Int) -> Plan {
        // One entry per corpus, the version a client without a channel or a rollout bucket is
        // offered: a beta version, or one still rolling out, would be a second entry beside it.
        let sorted = ChannelSelection.stableCurrent(catalog.corpora).sorted { ($0.title, $0.id) < ($1.title, $1.id) }.map(Listing.init)
        var navigation = [NavigationItem(title: "All corpora", summary: "Every corpus of the catalog, by title.",
                                          feed: "all-1", count: sorted.count, series: "all")]
        var feeds = pages(sorted[...], series: "all", title: "All corpora", pageSize: pageSize)
        let languages = Dictionary(grouping: sorted, by: \.language)
        for (index, language) in languages.keys.sorted().enumerated() {
            let series = "lang-" + slug(language, index: index)
            let entries = languages[language] ?? []
            let title = "Language: \(language)"
            navigation.append(NavigationItem(title: title, summary: "The corpora in \(language).", feed: "\(series)-1", count: entries.count, series: series))
            feeds += pages(entries[...], series: series, title: title, pageSize: pageSize)
        }
        return Plan(source: Source(catalogID: catalog.id, catalogTitle: catalog.title), rootTitle: catalog.title, pages: feeds, navigation: navigation)
    }

    static func pages(_ entries: ArraySlice<Listing>, series: String, title: String, pageSize: Int) -> [Feed] {
        let count = max(1, (entries.count + pageSize - 1) / pageSize)
        return (1...count).map { n in
            let from = entries.startIndex + (n - 1) * pageSize
            let slice = entries[from ..< min(from + pageSize, entries.endIndex)]
            let page = Page(entries: slice, number: n, pages: count, total: entries.count, pageSize: pageSize, series: series)
            return Feed(name: page.name(n), title: count > 1 ? "\(title) (page \(n) of \(count))" : title, kind: .acquisition(page))
        }
    }

    /// A language tag as a file name: the tag itself when it is letters, digits and hyphens (BCP 47
    /// tags are), else its position, so no publisher's text becomes a path.
    static func slug(_ language: String, index: Int) -> String {
        let ok = !language.isEmpty && language.utf8.count <= 35
            && language.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
        return ok ? language : "\(index + 1)"
    }

    /// The relations of an entry's bundle link: a free corpus downloads without any requirement
    /// (open access); an entitled one needs a token, so it gets the generic acquisition relation.
    static func acquisitionRelation(_ e: Listing) -> String {
        e.access == .free ? "http://opds-spec.org/acquisition/open-access" : "http://opds-spec.org/acquisition"
    }

    /// What the bundle link's title says about access.
    static func acquisitionTitle(_ e: Listing) -> String {
        e.access == .free ? "Download the corpus bundle" : "Download the corpus bundle (entitled: needs an entitlement token)"
    }

    /// `urn:corpussync:<catalog>:<corpus>:<version>`: ids are `Identifier`s, so the URN needs no escaping.
    static func identifier(_ source: Source, _ e: Listing) -> String { "urn:corpussync:\(source.catalogID):\(e.id):\(e.version)" }
    static func identifier(_ source: Source, feed: String) -> String { "urn:corpussync:\(source.catalogID):opds:\(feed)" }

    /// A bundle's link from inside `opds/`.
    static func bundleHref(_ e: Listing) -> String { "../" + e.bundlePath }

    static let bundleType = "application/zip"
    static let atomNavigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    static let atomAcquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let opdsJSON = "application/opds+json"
}

extension OPDSFeeds.Listing {
    init(_ e: CatalogEntry) {
        self.init(id: e.id, version: "\(e.version)", title: e.title, description: e.description, language: e.language,
                  license: e.license, access: e.access, bundlePath: e.bundle.path, bundleSize: e.bundle.size)
    }
}
