import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `corpusd publish` keeps the tree's transparency log: the root versions, then each catalog
/// version, one leaf each, the checkpoint signed by the publishing key under the catalog's origin;
/// a log changed behind its back is refused before anything of the publish becomes visible.
@Suite struct TreeLogAppenderTests {
    func publish(_ dir: TempDirectory, key: SecretKey, text: String) throws -> PublishSummary {
        try dir.write("catalog/docs/a.md", "# A\n\n\(text)")
        try dir.write("catalog/catalog.json", #"{"id":"harbor","title":"Harbor","corpora":[{"id":"a","version":"1","source":"docs","access":"free"}]}"#)
        return try TreePublisher.publish(catalogDirectory: dir.url("catalog"), output: dir.url("public"), key: key)
    }

    func leaves(_ tree: String, size: UInt64) throws -> [LogLeaf] {
        let bundle = try #require(TilePath.entryBundle(containing: 0, treeSize: size))
        return try EntryBundle.decode(try LogFolder(path: "\(tree)/log").tile(bundle), path: bundle).map { try LogLeaf(bytes: $0) }
    }

    @Test func everyPublishAppendsItsCatalogAfterTheRootsItsLogLacks() throws {
        let dir = TempDirectory("tree-log")
        let key = try SecretKey.generate()
        _ = try publish(dir, key: key, text: "one")
        _ = try publish(dir, key: key, text: "one")
        let tree = dir.url("public")
        let note = try #require(try LogFolder(path: "\(tree)/log").checkpointBytes())
        let origin = TreeLog.origin(catalogID: "harbor")
        #expect(origin == "corpussync/harbor")
        let checkpoint = try Checkpoint.open(note, origin: origin, verifiers: [try key.publicKey.noteVerifier(keyName: origin)]).checkpoint
        // Each catalog version is logged twice: its flat catalog (older clients) and its top
        // document (clients of parts), each as its own kind.
        #expect(checkpoint.size == 5)
        let logged = try leaves(tree, size: 5)
        #expect(logged.map(\.kind) == [.root, .catalog, .top, .catalog, .top])
        #expect(logged.map(\.version) == [1, 1, 1, 2, 2])
        let files = [TreeLayout.rootKeyPath(version: 1), TreeLayout.catalogPath(version: 1), TreeLayout.topPath(version: 1),
                     TreeLayout.catalogPath(version: 2), TreeLayout.topPath(version: 2)]
        for (leaf, file) in zip(logged, files) {
            #expect(leaf.sha256 == SHA256.digest(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(file)"))))
        }
    }

    @Test func aLogChangedBehindThePublishersBackIsRefusedAndThePointerStays() throws {
        let dir = TempDirectory("tree-log")
        let key = try SecretKey.generate()
        _ = try publish(dir, key: key, text: "one")
        let tree = dir.url("public")
        // One leaf hash of the level-0 tile (root 1, catalog 1 and its top document) replaced: the tiles no longer give the signed root.
        let tile = "\(tree)/log/\(try #require(TilePath.hashTile(level: 0, containing: 0, treeSize: 3)).path)"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: tile))
        bytes[0] ^= 0xff
        try bytes.write(to: URL(fileURLWithPath: tile))
        let pointer = try Data(contentsOf: URL(fileURLWithPath: "\(tree)/catalog.json"))
        let checkpoint = try Data(contentsOf: URL(fileURLWithPath: "\(tree)/log/checkpoint"))
        #expect(throws: TransparencyLogError.tilesDisagreeWithCheckpoint(treeSize: 3)) { try publish(dir, key: key, text: "one") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/catalog.json")) == pointer)
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/log/checkpoint")) == checkpoint)
    }
}
