import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// A republish writes the OPDS feeds in proportion to what changed (`OPDSFeeds.write`,
/// `OPDSFeedState`): the pages listing a changed corpus and the root are rendered and written,
/// every other page file is left as it was (same inode, same time, same bytes), and the tree is
/// what a whole render with the same dates gives. Without a usable state, everything is rendered.
@Suite struct OPDSFeedRepublishTests {
    static let pageSize = 10
    static let first = "2026-03-01T10:00:00Z", second = "2026-03-02T10:00:00Z", third = "2026-03-03T10:00:00Z"

    /// 130 corpora in three languages (`OPDSFeedTests.manyCorpora`), in pages of 10 (`all-1`…
    /// `all-13`, five pages a language), written once at `first` into a tree `OPDSFeedTests.check`
    /// can read.
    final class Fixture {
        let folder: PublishFolder
        var catalog: Catalog
        let tree: String
        let pointer: CatalogPointer

        init() throws {
            folder = try OPDSFeedTests.publishSamples()
            (pointer, catalog) = try OPDSFeedTests.manyCorpora(folder, count: 130)
            catalog.issued = OPDSFeedRepublishTests.first
            tree = folder.dir.url("feeds")
            try FileManager.default.createDirectory(atPath: "\(tree)/catalogs", withIntermediateDirectories: true)
            try CanonicalJSON.encode(pointer).write(to: URL(fileURLWithPath: "\(tree)/catalog.json"))
            try write()
        }

        /// Writes the feeds of `catalog` (and the catalog the checker compares them with).
        @discardableResult
        func write() throws -> [String] {
            try Data(catalog.canonicalBytes()).write(to: URL(fileURLWithPath: "\(tree)/\(pointer.path)"))
            return try OPDSFeeds.write(catalog, tree: tree, pageSize: OPDSFeedRepublishTests.pageSize)
        }

        /// Every feed file's inode and modification time, by name.
        func stats() -> [String: [Int]] {
            var out: [String: [Int]] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: "\(tree)/opds")) ?? [] where !name.hasPrefix(".") {
                var st = stat()
                guard stat("\(tree)/opds/\(name)", &st) == 0 else { continue }
                out[name] = [Int(st.st_ino), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)]
            }
            return out
        }

        /// The tree's feed files, byte for byte, against a whole render of `catalog` with `dates`.
        func expectMatchesWholeRender(dates: [String: String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let expected = OPDSFeedRepublishTests.wholeRender(catalog, pageSize: OPDSFeedRepublishTests.pageSize, dates: dates)
            #expect(Set(expected.map(\.path)) == Set(stats().keys.map { "opds/\($0)" }), sourceLocation: sourceLocation)
            let differing = expected.filter { FileManager.default.contents(atPath: "\(tree)/\($0.path)") != $0.bytes }.map(\.path)
            #expect(differing == [], "these differ from a whole render", sourceLocation: sourceLocation)
        }

        /// The pages listing `id`: its `all` page and its language's, by title order.
        func pagesListing(_ id: String) -> [String] {
            let listed = ChannelSelection.stableCurrent(catalog.corpora).sorted { ($0.title, $0.id) < ($1.title, $1.id) }
            let all = listed.firstIndex { $0.id == id }!
            let entry = listed[all]
            let language = listed.filter { $0.language == entry.language }
            return ["all-\(all / OPDSFeedRepublishTests.pageSize + 1)",
                    "lang-\(entry.language)-\(language.firstIndex { $0.id == id }! / OPDSFeedRepublishTests.pageSize + 1)"]
        }

        /// A new version of corpus `i`: another version and bundle, the same title.
        func bump(_ i: Int, to version: String) {
            catalog.corpora[i].version = CorpusVersion(version)!
            catalog.corpora[i].bundle.path = "bundles/\(version)-\(i).corpus.zip"
            catalog.corpora[i].bundle.size += 1
        }
    }

    static func files(of feeds: [String]) -> Set<String> {
        Set(feeds.flatMap { ["opds/\($0).atom", "opds/\($0).opds.json"] })
    }

    @Test func aVersionBumpRewritesOnlyThePagesListingItAndTheRoot() throws {
        let f = try Fixture()
        try f.expectMatchesWholeRender(dates: [:])
        let before = f.stats()
        #expect(before.count == 2 * (1 + 13 + 15))

        f.bump(57, to: "2")
        f.catalog.issued = Self.second
        let changed = f.pagesListing("corpus-57")
        #expect(changed == ["all-9", "lang-de-3"])
        let written = try f.write()
        #expect(Set(written) == Self.files(of: changed + ["root"]))
        let after = f.stats()
        for (name, stat) in before {
            let rewritten = written.contains("opds/\(name)")
            #expect((after[name] == stat) == !rewritten, "\(name): \(stat) → \(after[name] ?? [])")
        }
        // The two pages are dated by this publish, the root by its newest page; the rest keep theirs.
        try f.expectMatchesWholeRender(dates: Dictionary(uniqueKeysWithValues: f.allPages.map { ($0, changed.contains($0) ? Self.second : Self.first) }))
        let root = try String(contentsOfFile: "\(f.tree)/opds/root.atom", encoding: .utf8)
        #expect(root.contains("<updated>\(Self.second)</updated>") && root.contains("<updated>\(Self.first)</updated>"))
        let seen = try OPDSFeedTests.check(f.tree)
        #expect(seen.json["corpus-57"]?.version == "2" && seen.atom["corpus-57"]?.version == "2")

        // Nothing changed since: a publish writes no feed at all, and the dates stay.
        f.catalog.issued = Self.third
        #expect(try f.write() == [])
        #expect(f.stats() == after)
    }

    /// A corpus added changes the count every page of its series shows (`totalResults`): those
    /// series are rewritten whole, the other languages' pages are not, and the result is still the
    /// whole render's.
    @Test func anAddedCorpusRewritesTheSeriesItJoins() throws {
        let f = try Fixture()
        var added = f.catalog.corpora[0]
        added.id = "aaa-new"
        added.title = "Corpus 105a"
        f.catalog.corpora.append(added)
        f.catalog.issued = Self.second
        let written = try f.write()
        // Corpus 0's language is `de`; 131 corpora make a 14th page of `all`.
        let changed = f.allPages.filter { $0.hasPrefix("all-") || $0.hasPrefix("lang-de-") }
        #expect(changed.contains("all-14"))
        #expect(Set(written) == Self.files(of: changed + ["root"]))
        try f.expectMatchesWholeRender(dates: Dictionary(uniqueKeysWithValues: f.allPages.map { ($0, changed.contains($0) ? Self.second : Self.first) }))
        _ = try OPDSFeedTests.check(f.tree)
    }

    /// The state is a cache: missing, damaged, or naming files that are gone, the feeds come out
    /// whole and right, dated by the publish that could not trust it.
    @Test(arguments: ["missing", "damaged", "truncated", "file gone"])
    func withoutAUsableStateEveryFeedIsRendered(damage: String) throws {
        let f = try Fixture()
        let state = "\(f.tree)/opds/.state"
        let text = try String(contentsOfFile: state, encoding: .utf8)
        switch damage {
        case "missing": try FileManager.default.removeItem(atPath: state)
        case "damaged": try text.replacingOccurrences(of: "all-3 ", with: "all-3 zz").write(toFile: state, atomically: false, encoding: .utf8)
        case "truncated": try String(text.dropLast(30)).write(toFile: state, atomically: false, encoding: .utf8)
        default: try FileManager.default.removeItem(atPath: "\(f.tree)/opds/all-3.opds.json")
        }
        f.bump(57, to: "2")
        f.catalog.issued = Self.second
        let written = try f.write()
        if damage == "file gone" {
            // The state is good: the lost page comes back at its own date, beside the changed ones.
            #expect(Set(written) == Self.files(of: f.pagesListing("corpus-57") + ["all-3", "root"]))
            try f.expectMatchesWholeRender(dates: Dictionary(uniqueKeysWithValues: f.allPages.map {
                ($0, f.pagesListing("corpus-57").contains($0) ? Self.second : Self.first)
            }))
        } else {
            #expect(Set(written) == Self.files(of: f.allPages + ["root"]))
            try f.expectMatchesWholeRender(dates: [:])
        }
        _ = try OPDSFeedTests.check(f.tree)
        // And the state written then is good again: the next publish without a change writes nothing.
        f.catalog.issued = Self.third
        #expect(try f.write() == [])
    }
}

extension OPDSFeedRepublishTests {
    /// The oracle: every file of `opds/` for `catalog`, rendered whole from the plan, each page
    /// dated `dates[name]` (the catalog's issue time when absent), the root from its pages.
    static func wholeRender(_ catalog: Catalog, pageSize: Int, dates: [String: String]) -> [(path: String, bytes: Data)] {
        let plan = OPDSFeeds.plan(catalog, pageSize: pageSize)
        let date = { (name: String) in dates[name] ?? catalog.issued }
        let root = plan.root(date: date)
        return OPDSFeeds.render(root.feed, plan.source, updated: root.dates.max() ?? catalog.issued, itemDates: root.dates)
            + plan.pages.flatMap { OPDSFeeds.render($0, plan.source, updated: date($0.name)) }
    }

    /// Through `corpusd publish`'s own path: a republish that changed no corpus signs a new
    /// catalog version, and leaves every feed file as it was, dated by the first.
    @Test func aRepublishWithoutChangeLeavesTheFeedsAsTheyWere() throws {
        let folder = try OPDSFeedTests.publishSamples()
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(folder.tree)/opds").filter { !$0.hasPrefix(".") }.sorted()
        func stats() -> [[Int]] {
            names.map { name in
                var st = stat()
                return stat("\(folder.tree)/opds/\(name)", &st) == 0 ? [Int(st.st_ino), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)] : []
            }
        }
        let before = stats()
        let first = try String(contentsOfFile: "\(folder.tree)/opds/root.atom", encoding: .utf8)
        let second = try TreePublisher.publish(catalogDirectory: folder.catalog, output: folder.tree, key: folder.key,
                                               now: Date().addingTimeInterval(3600)).catalog
        #expect(second.version == 2)
        #expect(stats() == before, "\(names)")
        #expect(!first.contains("<updated>\(second.issued)</updated>"))
        #expect(FileManager.default.fileExists(atPath: "\(folder.tree)/opds/\(OPDSFeedState.fileName)"))
    }
}

extension OPDSFeedRepublishTests.Fixture {
    /// Every acquisition page's name.
    var allPages: [String] { OPDSFeeds.plan(catalog, pageSize: OPDSFeedRepublishTests.pageSize).pages.map(\.name) }
}
