import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// What a published tree has promised its clients and a publish may not take back: the catalog's
/// id, and for every corpus, that a version names one content and versions only go up.
/// Every refusal leaves the tree byte-identical.
@Suite struct TreeVersionRuleTests {
    final class Fixture: PublishFolder {
        init() throws {
            try super.init("version-rules")
            try writeCatalog(tides: "1")
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
            try dir.write("catalog/orbits/kepler.md", "# Kepler\n\nPlanets sweep equal areas in equal times.")
        }

        func writeCatalog(id: String = "sea", tides: String, title: String = "Tides", orbits: String? = "1") throws {
            let orbitsEntry = orbits.map { #",{"id":"orbits","version":"\#($0)","source":"orbits","access":"free"}"# } ?? ""
            try dir.write("catalog/catalog.json", #"{"id":"\#(id)","title":"Sea","corpora":[{"id":"tides","version":"\#(tides)","title":"\#(title)","source":"tides","access":"free"}\#(orbitsEntry)]}"#)
        }

        @discardableResult
        func publish() throws -> PublishSummary {
            try TreePublisher.publish(catalogDirectory: catalog, output: tree, key: key)
        }

        func snapshot() -> DirectorySnapshot { DirectorySnapshot(tree, ignoring: { $0.hasSuffix(".publish.lock") }) }

        func corpusd(_ args: [String]) throws -> ProcessResult { try ProcessRunner.run(BuiltProducts.corpusd, args) }
    }

    @Test func aChangedCatalogIDIsRefusedAndTheTreeIsUnchanged() throws {
        let f = try Fixture()
        try f.publish()
        try f.writeCatalog(id: "ocean", tides: "1")
        let before = f.snapshot()
        #expect(throws: PublisherError.catalogIDChanged(tree: f.tree, published: "sea", catalog: "ocean")) { try f.publish() }
        #expect(f.snapshot() == before)

        let r = try f.corpusd(["publish", f.catalog, "--out", f.tree, "--key", f.keyPath])
        #expect(r.status == 2)
        #expect(r.stderr == "error: \(f.tree) already holds catalog sea, and catalog.json says ocean: a tree serves one catalog for good (to start catalog ocean, publish it to a fresh --out folder and have clients add that with corpus remote add; to keep this tree, set \"id\" back to sea)\n")
        #expect(f.snapshot() == before)
    }

    @Test func aCatalogIDIsCheckedAgainstACatalogLeftWithoutItsPointer() throws {
        let f = try Fixture()
        try f.publish()
        unlink("\(f.tree)/catalog.json")  // a publish stopped before the pointer was written
        try f.writeCatalog(id: "ocean", tides: "1")
        let before = f.snapshot()
        #expect(throws: PublisherError.catalogIDChanged(tree: f.tree, published: "sea", catalog: "ocean")) { try f.publish() }
        #expect(f.snapshot() == before)
    }

    @Test func theSameVersionWithOtherContentIsRefusedAndTheTreeIsUnchanged() throws {
        let f = try Fixture()
        try f.publish()
        try f.dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and the full moon, twice a month.")
        let before = f.snapshot()
        #expect(throws: PublisherError.versionReused(corpus: "tides", version: "1", catalogVersion: 1)) { try f.publish() }
        #expect(f.snapshot() == before)

        let r = try f.corpusd(["publish", f.catalog, "--out", f.tree, "--key", f.keyPath, "--json"])
        #expect(r.status == 2)
        let error = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["error"] as? [String: String])
        #expect(error["code"] == "version-reused")
        #expect(error["message"] == "corpus tides version 1 was already published with other content (catalog version 1); a version names one content for good")
        #expect(error["hint"] == "bump the version of tides in catalog.json: clients that installed version 1 would never see the change")
        #expect(f.snapshot() == before)

        // Bumping the version publishes it.
        try f.writeCatalog(tides: "2")
        let bumped = try f.publish()
        #expect(bumped.built == ["tides"])
        #expect(bumped.catalog.corpora.first?.version.description == "2")
    }

    @Test func aLowerVersionIsRefusedEvenForACorpusAnOlderCatalogListed() throws {
        let f = try Fixture()
        try f.publish()
        try f.writeCatalog(tides: "3")
        try f.dir.write("catalog/tides/springs.md", "# Springs\n\nRevised.")
        try f.publish()
        try f.writeCatalog(tides: "2")
        let before = f.snapshot()
        #expect(throws: PublisherError.versionLowered(corpus: "tides", version: "2", published: "3", catalogVersion: 2)) { try f.publish() }
        #expect(f.snapshot() == before)

        // Dropped from the catalog and brought back lower: the older catalogs still say 3.
        try f.writeCatalog(tides: "3", orbits: nil)
        #expect(try f.publish().catalog.corpora.map(\.id) == ["tides"])
        try f.writeCatalog(tides: "3", orbits: "0.9")
        let again = f.snapshot()
        #expect(throws: PublisherError.versionLowered(corpus: "orbits", version: "0.9", published: "1", catalogVersion: 2)) { try f.publish() }
        #expect(f.snapshot() == again)

        let r = try f.corpusd(["publish", f.catalog, "--out", f.tree, "--key", f.keyPath])
        #expect(r.status == 2)
        #expect(r.stderr == "error: corpus orbits version 0.9 is lower than version 1, already published (catalog version 2) (versions only go up: give orbits a version above 1 in catalog.json)\n")
    }

    @Test func theSameContentUnderTheSameVersionRepublishesWithNewMetadata() throws {
        let f = try Fixture()
        let first = try f.publish()
        try f.writeCatalog(tides: "1", title: "Tides, revised title")
        let second = try f.publish()
        #expect(second.built == ["tides"])
        #expect(second.catalog.corpora[0].title == "Tides, revised title")
        #expect(second.catalog.corpora[0].content == first.catalog.corpora[0].content)
    }

    @Test func aPrebuiltBundleFollowsTheSameRule() throws {
        let f = try Fixture()
        try f.publish()
        try f.dir.write("other/springs.md", "# Springs\n\nOther words entirely.")
        _ = try CorpusBuilder.build(BuildOptions(source: f.dir.url("other"), id: "tides", version: CorpusVersion("1")!, title: "Tides"),
                                    key: f.key, output: f.dir.url("catalog/prebuilt/tides.corpus.zip"))
        try f.dir.write("catalog/catalog.json", #"{"id":"sea","title":"Sea","corpora":[{"id":"tides","version":"1","bundle":"prebuilt/tides.corpus.zip","access":"free"}]}"#)
        let before = f.snapshot()
        #expect(throws: PublisherError.versionReused(corpus: "tides", version: "1", catalogVersion: 1)) { try f.publish() }
        #expect(f.snapshot() == before)
    }
}
