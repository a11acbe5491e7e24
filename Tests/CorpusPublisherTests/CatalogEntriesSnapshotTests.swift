import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `.catalog-entries`: the publisher's binary copy of the entries it wrote last, which the next
/// publish's history check reads instead of the newest version's parts when version and root
/// agree, and ignores otherwise.
@Suite(.serialized) struct CatalogEntriesSnapshotTests {
    static func digest(_ n: UInt8) -> SHA256Digest { SHA256Digest(bytes: [UInt8](repeating: n, count: 32)) }
    static let root = PartRef(digest: digest(0xAB), size: 4321)

    static func entries() -> [CatalogEntry] {
        var plain = CatalogEntry(id: "tides", version: CorpusVersion("1.0")!, title: "Tides", description: "", language: "en", license: "",
                                 access: .free, tier: nil, bundled: false,
                                 bundle: BundleRef(path: "bundles/a.corpus.zip", digest: digest(1), size: 10), documents: 1, passages: 2,
                                 embedder: EmbedderInfo(id: "hash", dimension: 384, encoding: "int8"), content: digest(2))
        // The same title in two Unicode forms: a copy must keep the bytes (isIdentical tells them apart).
        plain.title = "Caf\u{E9}"
        var full = CatalogEntry(id: "orbits", version: CorpusVersion("2")!, title: "Cafe\u{301} «x»", description: "two\nlines",
                                language: "fr", license: "CC-BY-4.0", access: .entitled, tier: "pro", bundled: true,
                                bundle: BundleRef(path: "bundles/b.corpus.zip", digest: digest(3), size: 20), documents: 5, passages: 60,
                                embedder: EmbedderInfo(id: "minilm", dimension: 384, encoding: "f16", modelDigest: digest(4)), content: digest(5))
        var delta = DeltaRef(fromVersion: CorpusVersion("1")!, fromContent: digest(6), file: BundleRef(path: "deltas/d.delta.zip", digest: digest(7), size: 7))
        delta.payload = BundleRef(path: "payloads/p.age", digest: digest(8), size: 8)
        full.deltas = [delta, DeltaRef(fromVersion: CorpusVersion("0.9")!, fromContent: digest(9), file: BundleRef(path: "deltas/e.delta.zip", digest: digest(10), size: 9))]
        full.channel = "beta"
        var rollout = Rollout(start: Date(timeIntervalSince1970: 1_800_000_000), duration: "7d")
        rollout.start = "2027-01-15T08:00:00Z"
        full.rollout = rollout
        full.payload = BundleRef(path: "payloads/q.age", digest: digest(11), size: 11)
        var emptyDeltas = plain
        emptyDeltas.id = "empty"
        emptyDeltas.deltas = []
        return [plain, full, emptyDeltas]
    }

    @Test func everyFieldRoundTripsByteForByte() throws {
        let entries = Self.entries()
        let data = CatalogEntriesSnapshot.encode(version: 7, root: Self.root, entries: entries)
        let read = try #require(CatalogEntriesSnapshot.decode(data, version: 7, root: Self.root))
        #expect(read == entries)
        for (a, b) in zip(read, entries) { #expect(a.isIdentical(to: b)) }
        // String's == is canonical equivalence; the bytes are what must survive.
        #expect(read.map { Array($0.title.utf8) } == entries.map { Array($0.title.utf8) })
        #expect(read[0].title.utf8.count == 5 && read[1].title.utf8.count == 12)
    }

    @Test func anotherVersionOrRootOrADamagedCopyReadsAsNone() {
        let data = CatalogEntriesSnapshot.encode(version: 7, root: Self.root, entries: Self.entries())
        #expect(CatalogEntriesSnapshot.decode(data, version: 8, root: Self.root) == nil)
        #expect(CatalogEntriesSnapshot.decode(data, version: 7, root: PartRef(digest: Self.digest(0xAC), size: 4321)) == nil)
        #expect(CatalogEntriesSnapshot.decode(data, version: 7, root: PartRef(digest: Self.digest(0xAB), size: 4322)) == nil)
        #expect(CatalogEntriesSnapshot.decode(data.dropLast(), version: 7, root: Self.root) == nil)
        #expect(CatalogEntriesSnapshot.decode(data + [0], version: 7, root: Self.root) == nil)
    }

    /// A field added to `CatalogEntry` (or to what it holds) must be written by the snapshot too.
    @Test func theSnapshotKnowsEveryFieldOfAnEntry() throws {
        let full = Self.entries()[1]
        #expect(Mirror(reflecting: full).children.count == 18)
        #expect(Mirror(reflecting: try #require(full.rollout)).children.count == 2)
        #expect(Mirror(reflecting: try #require(full.deltas?.first)).children.count == 6)
        #expect(Mirror(reflecting: full.embedder).children.count == 4)
        #expect(Mirror(reflecting: full.bundle).children.count == 3)
    }

    final class Fixture: PublishFolder {
        init() throws {
            try super.init("entries-snapshot")
            try dir.write("catalog/tides/a.md", "# A\n\nSpring tides.")
            try dir.write("catalog/orbits/k.md", "# K\n\nEqual areas.")
            try write(tides: "1")
        }

        func write(tides: String) throws {
            try dir.write("catalog/catalog.json", """
            {"id": "c", "title": "C", "corpora": [
              {"id": "tides", "version": "\(tides)", "title": "Tides", "source": "tides", "access": "free"},
              {"id": "orbits", "version": "3", "title": "Orbits", "source": "orbits", "access": "free"}]}
            """)
        }

        func publish() throws { _ = try TreePublisher.publish(catalogDirectory: catalog, output: tree, key: key) }

        /// What the history says, in a form to compare.
        static func summary(_ h: TreeHistory) -> [String] {
            h.corpora.flatMap { id, versions in versions.map { "\(id) \($0.key) \($0.value.content.hex.prefix(8)) \($0.value.catalog)" } }.sorted()
                + h.deltaBases.flatMap { id, bases in bases.map { "base \(id) \($0.version)" } }.sorted()
                + ["latest \(h.latestVersion)", "newest \(h.newestEntries?.version ?? 0) \(h.newestEntries?.count ?? 0)"]
        }
    }

    @Test func theHistoryReadsTheNewestVersionFromTheSnapshotAndSaysWhatThePartsSay() throws {
        let f = try Fixture()
        try f.publish()
        try f.dir.write("catalog/tides/a.md", "# A\n\nSpring tides, twice a month.")
        try f.write(tides: "2")
        try f.publish()
        let fromSnapshot = try TreeHistory.load(tree: f.tree)
        #expect(fromSnapshot.newestFromSnapshot)
        unlink("\(f.tree)/\(CatalogEntriesSnapshot.fileName)")
        let fromParts = try TreeHistory.load(tree: f.tree)
        #expect(!fromParts.newestFromSnapshot)
        #expect(Fixture.summary(fromSnapshot) == Fixture.summary(fromParts))
        #expect(Fixture.summary(fromParts).contains { $0.hasPrefix("tides 1 ") } && Fixture.summary(fromParts).contains("newest 2 2"))
    }

    /// A copy of an older version (a publish that stopped after its parts, or a file put back by
    /// hand) is not used: the parts are read.
    @Test func aSnapshotOfAnotherVersionIsIgnored() throws {
        let f = try Fixture()
        try f.publish()
        let older = try Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/\(CatalogEntriesSnapshot.fileName)"))
        try f.publish()
        try older.write(to: URL(fileURLWithPath: "\(f.tree)/\(CatalogEntriesSnapshot.fileName)"))
        let h = try TreeHistory.load(tree: f.tree)
        #expect(!h.newestFromSnapshot && h.newestEntries?.version == 2 && h.newestEntries?.count == 2)
    }
}
