import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Publishing a catalog folder into a static tree, checked with the real `minisign`.
@Suite struct TreePublisherTests {
    /// A catalog folder with two source corpora (one entitled) and a key pair on disk.
    final class Fixture: PublishFolder {
        var pub: String { dir.url("keys/root.pub") }

        init() throws {
            try super.init("publish")
            try dir.write("keys/root.pub", key.publicKey.fileText)
            try dir.write("catalog/catalog.json", """
            {"id": "test-catalog", "title": "Test <catalog> & co", "corpora": [
              {"id": "tides", "version": "1", "title": "Tides", "description": "Tide notes", "license": "CC0-1.0",
               "source": "tides", "access": "free", "bundled": true},
              {"id": "orbits", "version": "2", "title": "Orbits", "source": "../shared-src/orbits",
               "access": "entitled", "tier": "pro"}
            ]}
            """)
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
            try dir.write("catalog/tides/neaps.txt", "Neaps\n\nNeap tides follow the quarter moons.")
            try dir.write("shared-src/orbits/kepler.md", "# Kepler\n\n## Laws\n\nPlanets sweep equal areas in equal times.")
        }

        func publish(key: SecretKey? = nil, expiresIn: TimeInterval = 30 * 86400, now: Date = Date()) throws -> PublishSummary {
            try TreePublisher.publish(catalogDirectory: catalog, output: tree, key: key ?? self.key, expiresIn: expiresIn, now: now)
        }

        func bundles() -> DirectorySnapshot { DirectorySnapshot(dir.url("public/bundles")) }

        func verify(_ rel: String, with pub: String? = nil) throws -> ProcessResult {
            try PublisherFixtures.minisignVerify("\(tree)/\(rel)", publicKey: pub ?? self.pub)
        }
    }

    @Test func firstPublishWritesAVerifiableTree() throws {
        let f = try Fixture()
        let summary = try f.publish()
        #expect(summary.createdRootKey)
        #expect(summary.built == ["tides", "orbits"])
        #expect(summary.catalog.version == 1)

        let files = Set(DirectorySnapshot(f.tree).entries.keys)
        for expected in ["catalog.json", "catalogs/1.json", "catalogs/1.json.minisig", "keys/root-1.json", "keys/root-1.json.minisig",
                         "keys/root.pub", "index.html", ".build-cache"] {
            #expect(files.contains(expected), "missing \(expected)")
        }
        #expect(try String(contentsOfFile: "\(f.tree)/keys/root.pub", encoding: .utf8) == f.key.publicKey.fileText)
        #expect(try String(contentsOfFile: "\(f.tree)/catalog.json", encoding: .utf8) ==
                #"{"format":1,"id":"test-catalog","path":"catalogs/1.json","version":1}"#)

        let catalogCheck = try f.verify("catalogs/1.json")
        #expect(catalogCheck.status == 0, "\(catalogCheck.stderr)")
        #expect(catalogCheck.stdout.contains("Trusted comment: catalog:test-catalog version:1 expires:\(summary.catalog.expires)"))
        #expect(try f.verify("keys/root-1.json").status == 0)

        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/catalogs/1.json")))
        #expect(catalog.rootVersion == 1)
        #expect(catalog.corpora.map(\.id) == ["tides", "orbits"])
        #expect(catalog.corpora.map(\.access) == [.free, .entitled])
        #expect(catalog.corpora.map(\.tier) == [nil, "pro"])
        #expect(catalog.corpora.map(\.bundled) == [true, false])
        for entry in catalog.corpora {
            let path = "\(f.tree)/\(entry.bundle.path)"
            let (digest, size) = try SHA256.hash(fileAt: path)
            #expect(entry.bundle.path == "bundles/\(Hex.encode(digest)).corpus.zip")
            #expect(entry.bundle.digest.hex == Hex.encode(digest) && entry.bundle.size == size)
            let work = TempDirectory("manifest")
            let manifest = try PublisherFixtures.unzipMember(path, "corpus.json", into: work.path)
            _ = try PublisherFixtures.unzipMember(path, "corpus.json.minisig", into: work.path)
            let r = try PublisherFixtures.minisignVerify(manifest, publicKey: f.pub)
            #expect(r.status == 0, "\(entry.id): \(r.stderr)")
        }
        let index = try String(contentsOfFile: "\(f.tree)/index.html", encoding: .utf8)
        #expect(index.contains("Test &lt;catalog&gt; &amp; co"))
        #expect(!index.contains("Test <catalog>"))
        #expect(index.contains("entitled (pro)"))
    }

    @Test func publishingAgainWithoutChangesRebuildsNothing() throws {
        let f = try Fixture()
        _ = try f.publish()
        let before = f.bundles()
        let second = try f.publish()
        #expect(second.built.isEmpty)
        #expect(second.reused == ["tides", "orbits"])
        #expect(second.removed.isEmpty)
        #expect(second.catalog.version == 2)
        #expect(f.bundles() == before)
        #expect(try f.verify("catalogs/2.json").status == 0)
        #expect(FileIO.exists("\(f.tree)/catalogs/1.json"))
    }

    @Test func changingOneDocumentRebuildsOnlyThatCorpus() throws {
        let f = try Fixture()
        let first = try f.publish()
        try f.dir.write("catalog/tides/neaps.txt", "Neaps\n\nNeap tides follow the first and last quarter moons.")
        // New content is a new version (a version names one content: TreeVersionRuleTests).
        let catalogJSON = try String(contentsOfFile: "\(f.catalog)/catalog.json", encoding: .utf8)
        try f.dir.write("catalog/catalog.json", catalogJSON.replacingOccurrences(of: #""id": "tides", "version": "1""#, with: #""id": "tides", "version": "2""#))
        let second = try f.publish()
        #expect(second.built == ["tides"])
        #expect(second.reused == ["orbits"])
        #expect(second.catalog.version == 2)
        let old = Dictionary(uniqueKeysWithValues: first.catalog.corpora.map { ($0.id, $0.bundle) })
        let new = Dictionary(uniqueKeysWithValues: second.catalog.corpora.map { ($0.id, $0.bundle) })
        #expect(old["orbits"] == new["orbits"])
        #expect(old["tides"] != new["tides"])
        // Catalog 1 has not expired, so its bundle stays for clients still reading it.
        #expect(second.removed.isEmpty)
        #expect(FileIO.exists("\(f.tree)/\(old["tides"]!.path)"))
        #expect(try f.verify("catalogs/2.json").status == 0)

        // Once every catalog naming it has expired, the old bundle goes.
        let later = Date().addingTimeInterval(40 * 86400)
        let third = try f.publish(now: later)
        #expect(third.removed == [old["tides"]!.path])
        #expect(!FileIO.exists("\(f.tree)/\(old["tides"]!.path)"))
        #expect(FileIO.exists("\(f.tree)/\(new["tides"]!.path)"))
    }

    @Test func aKeyThatIsNotTheRootIsRefusedAndNothingChanges() throws {
        let f = try Fixture()
        _ = try f.publish()
        let before = DirectorySnapshot(f.tree)
        let stranger = try SecretKey.generate()
        #expect(throws: PublisherError.keyNotCurrentRoot(given: stranger.keyID.description, current: f.key.keyID.description, rootVersion: 1)) {
            try f.publish(key: stranger)
        }
        #expect(DirectorySnapshot(f.tree) == before)
    }

    @Test func rotatedKeyChainVerifiesWithTheOldKeyAndOnlyTheNewKeyPublishes() throws {
        let f = try Fixture()
        _ = try f.publish()
        let newKey = try SecretKey.generate()
        try f.dir.write("keys/new.pub", newKey.publicKey.fileText)
        let doc = try RootKeyChain.rotate(tree: f.tree, currentKey: f.key, newKey: newKey)
        #expect(doc.version == 2 && doc.keyID == newKey.keyID.description)

        // root-2 is signed by root 1: the real minisign accepts it with the OLD public key only.
        let r = try f.verify("keys/root-2.json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Trusted comment: root:2 key:\(newKey.keyID)"))
        #expect(try f.verify("keys/root-2.json", with: f.dir.url("keys/new.pub")).status != 0)
        #expect(try String(contentsOfFile: "\(f.tree)/keys/root.pub", encoding: .utf8) == newKey.publicKey.fileText)

        let before = DirectorySnapshot(f.tree)
        #expect(throws: PublisherError.keyNotCurrentRoot(given: f.key.keyID.description, current: newKey.keyID.description, rootVersion: 2)) {
            try f.publish()
        }
        #expect(DirectorySnapshot(f.tree) == before)

        let summary = try f.publish(key: newKey)
        #expect(summary.catalog.rootVersion == 2)
        #expect(try f.verify("catalogs/2.json", with: f.dir.url("keys/new.pub")).status == 0)
        #expect(try f.verify("catalogs/2.json").status != 0)
        // The key is part of the build inputs: bundles are re-signed with the new key.
        #expect(summary.built == ["tides", "orbits"])
    }

    @Test func rotatingToTheSameKeyOrWithAStrangerIsRefused() throws {
        let f = try Fixture()
        _ = try f.publish()
        let before = DirectorySnapshot(f.tree)
        #expect(throws: PublisherError.sameKey(keyID: f.key.keyID.description)) {
            try RootKeyChain.rotate(tree: f.tree, currentKey: f.key, newKey: f.key)
        }
        let stranger = try SecretKey.generate()
        #expect(throws: PublisherError.keyNotCurrentRoot(given: stranger.keyID.description, current: f.key.keyID.description, rootVersion: 1)) {
            try RootKeyChain.rotate(tree: f.tree, currentKey: stranger, newKey: try SecretKey.generate())
        }
        #expect(DirectorySnapshot(f.tree) == before)
    }

    @Test func aTamperedRootDocumentStopsPublishing() throws {
        let f = try Fixture()
        _ = try f.publish()
        let path = "\(f.tree)/keys/root-1.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"format\":1", with: "\"format\":1 ")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let before = DirectorySnapshot(f.tree)
        #expect {
            try f.publish()
        } throws: { error in
            guard case let PublisherError.invalidTree(p, _) = error else { return false }
            return p == "keys/root-1.json"
        }
        #expect(DirectorySnapshot(f.tree) == before)
    }

    @Test(arguments: [
        (#"{"id":"c","title":"t","corpora":[]}"#, "it lists no corpora"),
        (#"{"id":"c","title":"t","corpora":[{"id":"a","version":"1","access":"free"}]}"#, "corpus a needs exactly one of \"source\" and \"bundle\""),
        (#"{"id":"c","title":"t","corpora":[{"id":"a","version":"1","access":"free","source":"x"},{"id":"a","version":"1","access":"free","source":"x"}]}"#, "corpus a is listed twice"),
        (#"{"id":"c","title":"t","corpora":[{"id":"../a","version":"1","access":"free","source":"x"}]}"#, "corpus id \"../a\" is not a valid id"),
        (#"{"id":"c","title":"t","corpora":[{"id":"a","version":"v1","access":"free","source":"x"}]}"#, "invalid value at corpora.0.version"),
        (#"{"id":"c","title":"t","corpora":[{"id":"a","version":"1","access":"paid","source":"x"}]}"#, "invalid value at corpora.0.access"),
        (#"{"id":"c","title":"t","corpora":[{"id":"a","version":"1","access":"free","tier":"pro","source":"x"}]}"#, "corpus a has a tier but is not \"entitled\""),
        (#"{"id":"c","corpora":[]}"#, "missing field title"),
    ])
    func invalidCatalogSourcesAreRefusedBeforeAnythingIsWritten(json: String, reason: String) throws {
        let dir = TempDirectory("catalog-source")
        try dir.write("catalog/catalog.json", json)
        let before = DirectorySnapshot(dir.path)
        #expect(throws: PublisherError.invalidCatalogSource(path: dir.url("catalog/catalog.json"), reason: reason)) {
            try TreePublisher.publish(catalogDirectory: dir.url("catalog"), output: dir.url("public"), key: try SecretKey.generate())
        }
        #expect(DirectorySnapshot(dir.path) == before)
    }

    @Test func prebuiltBundlesArePublishedAsIsWhenSignedByTheRootKey() throws {
        let f = try Fixture()
        let built = try CorpusBuilder.build(BuildOptions(source: f.dir.url("catalog/tides"), id: "extra", version: CorpusVersion("3")!, title: "Extra"),
                                            key: f.key, output: f.dir.url("catalog/prebuilt/extra.corpus.zip"))
        try f.dir.write("catalog/catalog.json", """
        {"id": "test-catalog", "title": "T", "corpora": [{"id": "extra", "version": "3", "bundle": "prebuilt/extra.corpus.zip", "access": "free"}]}
        """)
        let summary = try f.publish()
        let entry = try #require(summary.catalog.corpora.first)
        #expect(entry.title == "Extra")
        #expect(entry.content == built.manifest.content)
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/\(entry.bundle.path)")) ==
                Data(contentsOf: URL(fileURLWithPath: built.output)))

        // The same bundle listed under another version is refused.
        try f.dir.write("catalog/catalog.json", """
        {"id": "test-catalog", "title": "T", "corpora": [{"id": "extra", "version": "4", "bundle": "prebuilt/extra.corpus.zip", "access": "free"}]}
        """)
        #expect(throws: PublisherError.self) { try f.publish() }
    }
}
