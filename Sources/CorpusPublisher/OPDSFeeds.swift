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
    }

    /// One page of an acquisition feed: its entries, and the names of its neighbours.
    struct Page {
        let entries: [CatalogEntry]
        let number: Int
        let pages: Int
        let total: Int
        let pageSize: Int
        let series: String      // `all`, `lang-en`
        func name(_ n: Int) -> String { "\(series)-\(n)" }
    }

    /// Every file of `opds/` for `catalog`, by path relative to the tree.
    public static func files(_ catalog: Catalog, pageSize: Int = defaultPageSize) -> [(path: String, bytes: Data)] {
        feeds(catalog, pageSize: pageSize).flatMap { feed in
            [(path: "\(folder)/\(feed.name).atom", bytes: Data(OPDSAtom.render(feed, catalog: catalog).utf8)),
             (path: "\(folder)/\(feed.name).opds.json", bytes: OPDSJSON.render(feed, catalog: catalog))]
        }
    }

    /// Writes the feeds into `tree/opds/`, each atomically, and removes the feed files an earlier
    /// publish left that this one no longer has (a catalog that shrank has fewer pages).
    public static func write(_ catalog: Catalog, tree: String, pageSize: Int = defaultPageSize) throws {
        let files = files(catalog, pageSize: pageSize)
        try FileManager.default.createDirectory(atPath: "\(tree)/\(folder)", withIntermediateDirectories: true)
        for file in files { try FileIO.writeAtomically(file.bytes, to: "\(tree)/\(file.path)") }
        let kept = Set(files.map { String($0.path.dropFirst(folder.count + 1)) })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "\(tree)/\(folder)")) ?? []
            where !kept.contains(name) && (name.hasSuffix(".atom") || name.hasSuffix(".opds.json")) {
            FileIO.remove("\(tree)/\(folder)/\(name)")
        }
    }

    static func feeds(_ catalog: Catalog, pageSize: Int) -> [Feed] {
        // One entry per corpus, the version a client without a channel or a rollout bucket is
        // offered: a beta version, or one still rolling out, would be a second entry beside it.
        let sorted = ChannelSelection.stableCurrent(catalog.corpora).sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        var navigation = [NavigationItem(title: "All corpora", summary: "Every corpus of the catalog, by title.",
                                          feed: "all-1", count: sorted.count)]
        var feeds = pages(sorted, series: "all", title: "All corpora", pageSize: pageSize)
        let languages = Dictionary(grouping: sorted, by: \.language)
        for (index, language) in languages.keys.sorted().enumerated() {
            let series = "lang-" + slug(language, index: index)
            let entries = languages[language] ?? []
            let title = "Language: \(language)"
            navigation.append(NavigationItem(title: title, summary: "The corpora in \(language).", feed: "\(series)-1", count: entries.count))
            feeds += pages(entries, series: series, title: title, pageSize: pageSize)
        }
        return [Feed(name: rootName, title: catalog.title, kind: .navigation(navigation))] + feeds
    }

    static func pages(_ entries: [CatalogEntry], series: String, title: String, pageSize: Int) -> [Feed] {
        let count = max(1, (entries.count + pageSize - 1) / pageSize)
        return (1...count).map { n in
            let slice = Array(entries.dropFirst((n - 1) * pageSize).prefix(pageSize))
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
    static func acquisitionRelation(_ e: CatalogEntry) -> String {
        e.access == .free ? "http://opds-spec.org/acquisition/open-access" : "http://opds-spec.org/acquisition"
    }

    /// What the bundle link's title says about access.
    static func acquisitionTitle(_ e: CatalogEntry) -> String {
        e.access == .free ? "Download the corpus bundle" : "Download the corpus bundle (entitled: needs an entitlement token)"
    }

    /// `urn:corpussync:<catalog>:<corpus>:<version>`: ids are `Identifier`s, so the URN needs no escaping.
    static func identifier(_ catalog: Catalog, _ e: CatalogEntry) -> String { "urn:corpussync:\(catalog.id):\(e.id):\(e.version)" }
    static func identifier(_ catalog: Catalog, feed: String) -> String { "urn:corpussync:\(catalog.id):opds:\(feed)" }

    /// A bundle's link from inside `opds/`.
    static func bundleHref(_ e: CatalogEntry) -> String { "../" + e.bundle.path }

    static let bundleType = "application/zip"
    static let atomNavigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    static let atomAcquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let opdsJSON = "application/opds+json"
}
