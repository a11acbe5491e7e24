import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// The OPDS 1.2 (Atom) and 2.0 (JSON) feeds `corpusd publish` writes under `opds/`, checked by
/// `scripts/check-opds.py` against what the specifications require: the OPDS 2.0 JSON Schemas
/// (Tests/Fixtures/opds-schemas, with the Readium manifest's), the OPDS 1.2 rules read by a real
/// Atom consumer (feedparser), and the signed catalog (every corpus once, its bundle, size,
/// language, description and access).
@Suite struct OPDSFeedTests {
    static let schemas = "\(BuiltHome.packageRoot)/Tests/Fixtures/opds-schemas"
    static let checker = "\(BuiltHome.packageRoot)/scripts/check-opds.py"

    struct Seen: Decodable {
        struct Entry: Decodable { let title: String; let access: String; let rel: String?; let version: String }
        let json: [String: Entry]
        let atom: [String: Entry]
        let languages: [String: [String]]
        let files: [String]
    }

    /// Runs the checker on `tree`; a tree that fails it fails the test with the checker's lines.
    static func check(_ tree: String) throws -> Seen {
        // Debian's python3 with python3-jsonschema and python3-feedparser (scripts/bootstrap.sh).
        let r = try ProcessRunner.run("/usr/bin/python3", [checker, tree, schemas], timeout: 60)
        try #require(r.status == 0, "check-opds.py: \(r.stderr)")
        return try JSONDecoder().decode(Seen.self, from: r.stdoutData)
    }

    static let hostileTitle = "Tides <b> & \"quotes\" 'apos' \u{01}\u{1B}[31m\u{7F} end"

    /// The repository's sample corpora (without their model: the hashing embedder), one title
    /// hostile, published by the real publish path.
    static func publishSamples() throws -> PublishFolder {
        let folder = try PublishFolder("opds")
        let source = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(BuiltHome.packageRoot)/catalog/catalog.json"))) as! [String: Any]
        var corpora: [[String: Any]] = []
        for var e in source["corpora"] as! [[String: Any]] where BuiltHome.samples.contains(e["id"] as! String) {
            e.removeValue(forKey: "embedder")
            let id = e["id"] as! String
            try FileManager.default.createDirectory(atPath: folder.catalog, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "\(BuiltHome.packageRoot)/catalog/\(id)", toPath: "\(folder.catalog)/\(id)")
            e["source"] = id
            if id == "field-guide-tides" { e["title"] = hostileTitle; e["description"] = "Tables & streams <\u{02}>" }
            corpora.append(e)
        }
        let catalog: [String: Any] = ["id": source["id"]!, "title": "Sample & <catalog>", "corpora": corpora]
        try folder.dir.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: catalog, options: [.sortedKeys]))
        _ = try TreePublisher.publish(catalogDirectory: folder.catalog, output: folder.tree, key: folder.key)
        return folder
    }

    /// The signed catalog `folder` published and the pointer naming it, its first entry made
    /// `count` corpora (`corpus-0`…, titled `Corpus 0`…) in three languages (`de`, `en`, `pt-BR`).
    static func manyCorpora(_ folder: PublishFolder, count: Int) throws -> (pointer: CatalogPointer, catalog: Catalog) {
        let pointer = try CanonicalJSON.decode(CatalogPointer.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder.tree)/catalog.json")), what: "pointer")
        var catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(folder.tree)/\(pointer.path)")))
        let template = catalog.corpora[0]
        catalog.corpora = (0..<count).map { i in
            var e = template
            e.id = "corpus-\(i)"
            e.title = "Corpus \(i)"
            e.language = ["de", "en", "pt-BR"][i % 3]
            return e
        }
        return (pointer, catalog)
    }

    @Test func theSampleCatalogsFeedsMeetBothSpecificationsAndListEveryCorpus() throws {
        let folder = try Self.publishSamples()
        let seen = try Self.check(folder.tree)
        #expect(Set(seen.json.keys) == Set(BuiltHome.samples) && Set(seen.atom.keys) == Set(BuiltHome.samples))
        // Entitled corpora are marked: the generic acquisition relation, never open access.
        #expect(seen.json["orbital-mechanics-primer"]?.rel == "http://opds-spec.org/acquisition")
        #expect(seen.atom["orbital-mechanics-primer"]?.rel == "http://opds-spec.org/acquisition")
        #expect(seen.json["sourdough-handbook"]?.rel == "http://opds-spec.org/acquisition/open-access")
        #expect(seen.languages == ["en": BuiltHome.samples.sorted()])
        #expect(seen.files == ["all-1.atom", "all-1.opds.json", "lang-en-1.atom", "lang-en-1.opds.json", "root.atom", "root.opds.json"])
    }

    /// `<`, `&` and quotes round-trip in both feeds; the control characters XML 1.0 cannot carry
    /// (§2.2) are dropped from the Atom feed and kept, escaped, in the JSON one.
    @Test func hostileTitlesRoundTripEscaped() throws {
        let folder = try Self.publishSamples()
        let seen = try Self.check(folder.tree)
        #expect(seen.json["field-guide-tides"]?.title == Self.hostileTitle)
        #expect(seen.atom["field-guide-tides"]?.title == "Tides <b> & \"quotes\" 'apos' [31m\u{7F} end")
        let json = try String(contentsOfFile: "\(folder.tree)/opds/all-1.opds.json", encoding: .utf8)
        #expect(json.contains(#"\u0001\u001b[31m"#))
        let atom = try String(contentsOfFile: "\(folder.tree)/opds/all-1.atom", encoding: .utf8)
        #expect(atom.contains("<title>Tides &lt;b&gt; &amp; &quot;quotes&quot; &apos;apos&apos; [31m\u{7F} end</title>"))
        #expect(!atom.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    /// A reader is shown what a client with no channel and no rollout bucket is offered now: per
    /// corpus the stable channel's current version, never a beta version or one still rolling out
    /// beside it (each would be a second entry of the same corpus).
    @Test(arguments: [
        [["version": "1"], ["version": "3", "channel": "beta"]],
        [["version": "1"], ["version": "2", "rollout": ["start": "2026-01-01T00:00:00Z", "duration": "3650d"]]],
        [["version": "1"], ["version": "2", "rollout": ["start": "2026-01-01T00:00:00Z", "duration": "3650d"]], ["version": "3", "channel": "beta"]],
    ] as [[[String: any Sendable]]])
    func feedsShowTheStableChannelsCurrentVersionOnly(versions: [[String: any Sendable]]) throws {
        let folder = try PublishFolder("opds-channels")
        var corpora: [[String: Any]] = []
        for v in versions {
            let version = v["version"] as! String
            try folder.dir.write("catalog/docs-\(version)/guide.md", "# Guide \(version)\n\nTide tables, edition \(version).\n")
            corpora.append(v.merging(["id": "docs", "title": "Docs", "access": "free", "source": "docs-\(version)"]) { a, _ in a })
        }
        let catalog: [String: Any] = ["id": "fleet", "title": "Fleet", "corpora": corpora]
        try folder.dir.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: catalog, options: [.sortedKeys]))
        _ = try TreePublisher.publish(catalogDirectory: folder.catalog, output: folder.tree, key: folder.key)
        let seen = try Self.check(folder.tree)
        #expect(seen.json["docs"]?.version == "1" && seen.atom["docs"]?.version == "1")
        #expect(seen.languages == ["en": ["docs"]])
        let json = try String(contentsOfFile: "\(folder.tree)/opds/all-1.opds.json", encoding: .utf8)
        #expect(json.components(separatedBy: "urn:corpussync:fleet:docs:").count == 2, "\(json)")
    }

    /// 130 corpora in three languages: pages of 50 at most, every corpus once through `next`, and
    /// a later, smaller catalog leaves no stale page behind.
    @Test func aLargeCatalogIsPagedAndShrinkingRemovesStalePages() throws {
        let folder = try Self.publishSamples()
        var (pointer, catalog) = try Self.manyCorpora(folder, count: 130)
        let tree = folder.dir.url("large")
        try FileManager.default.createDirectory(atPath: "\(tree)/catalogs", withIntermediateDirectories: true)
        try Data(catalog.canonicalBytes()).write(to: URL(fileURLWithPath: "\(tree)/\(pointer.path)"))
        try CanonicalJSON.encode(pointer).write(to: URL(fileURLWithPath: "\(tree)/catalog.json"))
        try OPDSFeeds.write(catalog, tree: tree)
        let seen = try Self.check(tree)
        #expect(seen.json.count == 130 && seen.atom.count == 130)
        #expect(seen.languages.keys.sorted() == ["de", "en", "pt-BR"])
        #expect(seen.files.contains("all-3.opds.json") && !seen.files.contains("all-4.opds.json"))
        for name in seen.files {
            let size = FileIO.fileSize("\(tree)/opds/\(name)") ?? 0
            #expect(size < 64 * 1024, "\(name) is \(size) bytes")
        }

        catalog.corpora = Array(catalog.corpora.prefix(10))
        try Data(catalog.canonicalBytes()).write(to: URL(fileURLWithPath: "\(tree)/\(pointer.path)"))
        try OPDSFeeds.write(catalog, tree: tree)
        let after = try Self.check(tree)
        #expect(after.json.count == 10)
        #expect(!FileManager.default.fileExists(atPath: "\(tree)/opds/all-2.atom"))
        #expect(!FileManager.default.fileExists(atPath: "\(tree)/opds/all-2.opds.json"))
    }
}
