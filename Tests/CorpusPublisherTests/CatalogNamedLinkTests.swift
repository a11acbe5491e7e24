import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
@testable import CorpusPublisher

/// The other files a publish reads and publishes besides documents: model files (shipped in the
/// embedder artifact) and prebuilt bundles (copied into the tree). A model file linked to a secret
/// outside its folder would publish the secret; a prebuilt bundle was copied as a link.
@Suite struct CatalogNamedLinkTests {
    static var modelAvailable: Bool { PublishEmbedderTests.modelAvailable }

    final class Fixture: PublishFolder {
        init() throws {
            try super.init("named-links")
            try dir.write("secret/root.key", try SecretKey.generate().fileText)
            try dir.write("catalog/catalog.json", """
            {"id": "c", "title": "C", "embedders": [{"id": "all-MiniLM-L6-v2", "source": "../model"}],
             "corpora": [{"id": "tides", "version": "1", "source": "tides", "access": "free", "embedder": "all-MiniLM-L6-v2"}]}
            """)
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
        }

        /// A model folder holding every payload file; with `realWeights` the real MiniLM files, else stand-ins.
        func model(realWeights: Bool) throws {
            for name in EmbedderArtifactLayout.payloadMembers {
                let path = dir.url("model/\(name)")
                try FileManager.default.createDirectory(atPath: dir.url("model"), withIntermediateDirectories: true)
                if realWeights {
                    try FileManager.default.copyItem(atPath: "\(PublishEmbedderTests.modelFolder)/\(name)", toPath: path)
                } else {
                    try dir.write("model/\(name)", "stand-in")
                }
            }
        }

        func link(_ name: String, to target: String) throws {
            let path = dir.url(name)
            FileIO.remove(path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }
    }

    @Test func aModelFileLinkedOutsideItsFolderIsRefusedBeforeAnythingIsWritten() throws {
        let f = try Fixture()
        try f.model(realWeights: false)
        try f.link("model/vocab.txt", to: f.dir.url("secret/root.key"))
        #expect(throws: PublisherError.linkLeavesFolder(path: "\(f.dir.url("catalog"))/../model/vocab.txt", folder: "\(f.dir.url("catalog"))/../model")) {
            try TreePublisher.publish(catalogDirectory: f.dir.url("catalog"), output: f.tree, key: f.key)
        }
        #expect(!FileIO.exists(f.tree))

        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["publish", f.dir.url("catalog"), "--out", f.tree, "--key", f.keyPath])
        #expect(r.status == 2)
        #expect(r.stderr == "error: \(f.dir.url("catalog"))/../model/vocab.txt is a symbolic link leading outside \(f.dir.url("catalog"))/../model; the publisher reads only files inside the folders catalog.json names (copy the file into the folder (cp -L) instead of linking to it)\n")
        #expect(!FileIO.exists(f.tree))
    }

    @Test(.enabled(if: modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func aModelFileLinkedInsideItsFolderIsPublishedAsTheFileItNames() throws {
        let f = try Fixture()
        try f.model(realWeights: true)
        try FileManager.default.createDirectory(atPath: f.dir.url("model/files"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: f.dir.url("model/vocab.txt"), toPath: f.dir.url("model/files/vocab.txt"))
        try f.link("model/vocab.txt", to: "files/vocab.txt")
        let summary = try TreePublisher.publish(catalogDirectory: f.dir.url("catalog"), output: f.tree, key: f.key)
        let artifact = try #require(summary.catalog.embedders?.first)
        let verified = try EmbedderArtifactReader(path: "\(f.tree)/\(artifact.artifact.path)").verifyAll(trustedKeys: [f.key.publicKey])
        #expect(verified.manifest.files["vocab.txt"]?.sha256 == (try SHA256.digest(fileAt: "\(PublishEmbedderTests.modelFolder)/vocab.txt").digest))
    }

    @Test func aPrebuiltBundleNamedThroughALinkIsCopiedAsAFile() throws {
        let f = try Fixture()
        _ = try CorpusBuilder.build(BuildOptions(source: f.dir.url("catalog/tides"), id: "atlas", version: CorpusVersion("1")!, title: "Atlas"),
                                    key: f.key, output: f.dir.url("elsewhere/atlas.corpus.zip"))
        try FileManager.default.createDirectory(atPath: f.dir.url("catalog/prebuilt"), withIntermediateDirectories: true)
        try f.link("catalog/prebuilt/atlas.corpus.zip", to: "../../elsewhere/atlas.corpus.zip")
        try f.dir.write("catalog/catalog.json", #"{"id":"c","title":"C","corpora":[{"id":"atlas","version":"1","bundle":"prebuilt/atlas.corpus.zip","access":"free"}]}"#)
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["publish", f.dir.url("catalog"), "--out", f.tree, "--key", f.keyPath])
        #expect(r.status == 0, "\(r.stderr)")
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/catalogs/1.json")))
        var st = stat()
        #expect(lstat("\(f.tree)/\(catalog.corpora[0].bundle.path)", &st) == 0)
        #expect(st.st_mode & S_IFMT == S_IFREG, "the tree must hold the bundle itself, not a link to the operator's file")
        #expect(catalog.corpora[0].bundle.digest.hex == Hex.encode(try SHA256.hash(fileAt: f.dir.url("elsewhere/atlas.corpus.zip")).digest))
    }
}
