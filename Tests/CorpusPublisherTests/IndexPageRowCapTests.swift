import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `index.html` lists the first `IndexPage.defaultMaxRows` corpora in the catalog's order; past
/// that it says how many more there are and where to find them (the OPDS feeds, `corpus catalog`).
@Suite struct IndexPageRowCapTests {
    /// `count` corpora, `corpus-0`… in the catalog's order.
    static func catalog(_ count: Int) throws -> Catalog {
        try OPDSFeedTests.manyCorpora(OPDSFeedTests.publishSamples(), count: count).catalog
    }

    static func rowIDs(_ page: String) -> [String] {
        page.components(separatedBy: "<tr class=\"corpus\"").dropFirst().map { row in
            String(row.components(separatedBy: "<small>")[1].prefix { $0 != " " })
        }
    }

    static func render(_ catalog: Catalog, maxRows: Int = IndexPage.defaultMaxRows) -> String {
        IndexPage.render(catalog, signer: "RWQkeyid", trust: .singleKey(keyID: "RWQkeyid"), maxRows: maxRows)
    }

    @Test func aCatalogAboveTheCapListsItsFirstCorporaAndPointsToTheFeeds() throws {
        let catalog = try Self.catalog(1_003)
        let page = Self.render(catalog)
        let ids = Self.rowIDs(page)
        #expect(ids.count == 1_000 && ids.first == "corpus-0" && ids.last == "corpus-999")
        #expect(page.contains("1000 of 1000 shown"))
        #expect(page.contains("3 more corpora are not listed here."))
        #expect(page.contains(#"<a href="opds/root.atom">OPDS catalog</a>"#))
        #expect(page.contains("<code>corpus catalog</code>"))

        let one = Self.render(catalog, maxRows: 1_002)
        #expect(Self.rowIDs(one).count == 1_002 && one.contains("1 more corpus is not listed here."))
    }

    @Test(arguments: [2, 5])
    func aCatalogAtOrBelowTheCapListsEveryCorpusAndNothingMore(maxRows: Int) throws {
        let catalog = try Self.catalog(2)
        let page = Self.render(catalog, maxRows: maxRows)
        #expect(Self.rowIDs(page) == ["corpus-0", "corpus-1"])
        #expect(page.contains("2 of 2 shown"))
        #expect(!page.contains("not listed here") && !page.contains("opds/root.atom"))
    }
}
