import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
@testable import CorpusPublisher

/// Publishing corpora that name a model embedder: the artifact beside the bundles, the fallback
/// when the weights are absent, and the refusals of a catalog folder that names what it lacks.
@Suite struct PublishEmbedderTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modelFolder = packageRoot.appendingPathComponent("models/all-MiniLM-L6-v2").path
    static var modelAvailable: Bool { FileManager.default.fileExists(atPath: "\(modelFolder)/model.safetensors") }

    /// A catalog folder whose `tides` corpus asks for all-MiniLM-L6-v2, found at `models/m`.
    static func catalog(_ dir: TempDirectory, embedder: String = "all-MiniLM-L6-v2") throws -> String {
        try dir.write("catalog/catalog.json", """
        {"id": "c", "title": "C", "embedders": [{"id": "all-MiniLM-L6-v2", "source": "../models/m"}],
         "corpora": [{"id": "tides", "version": "1", "source": "tides", "access": "free", "embedder": "\(embedder)"},
                     {"id": "plain", "version": "1", "source": "tides", "access": "free"}]}
        """)
        try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
        try FileManager.default.createDirectory(atPath: dir.url("models"), withIntermediateDirectories: true)
        return dir.url("catalog")
    }

    @Test func absentWeightsFallBackToTheHashingEmbedderWithANote() throws {
        let dir = TempDirectory("publish-embedder")
        let catalog = try Self.catalog(dir)
        try FileManager.default.createDirectory(atPath: dir.url("models/m"), withIntermediateDirectories: true)
        var notes: [String] = []
        let summary = try TreePublisher.publish(catalogDirectory: catalog, output: dir.url("public"), key: try SecretKey.generate()) { step in
            if case let .embedderFallback(corpus, embedder, fallback, reason) = step { notes.append("\(corpus) \(embedder) \(fallback) \(reason)") }
        }
        #expect(notes.count == 1)
        #expect(notes.first?.hasPrefix("tides all-MiniLM-L6-v2 hash-uni-bi-384-v1 ") == true)
        #expect(notes.first?.contains("scripts/fetch-model.sh") == true)
        #expect(summary.catalog.embedders == nil)
        #expect(summary.catalog.corpora.allSatisfy { $0.embedder.id == HashingEmbedder.identifier && $0.embedder.modelDigest == nil })
        #expect(!FileIO.exists(dir.url("public/embedders")))
    }

    @Test func aCorpusNamingAnUnlistedEmbedderIsRefusedBeforeAnythingIsWritten() throws {
        let dir = TempDirectory("publish-embedder")
        let catalog = try Self.catalog(dir, embedder: "bge-small-v9")
        #expect(throws: PublisherError.invalidCatalogSource(path: "\(catalog)/catalog.json",
                                                          reason: "corpus tides names embedder bge-small-v9, which \"embedders\" does not list")) {
            try TreePublisher.publish(catalogDirectory: catalog, output: dir.url("public"), key: try SecretKey.generate())
        }
        #expect(!FileIO.exists(dir.url("public")))
    }

    @Test(.enabled(if: modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func aModelCorpusShipsItsArtifactWhichARepublishReuses() throws {
        let dir = TempDirectory("publish-embedder")
        let catalog = try Self.catalog(dir)
        try FileManager.default.createSymbolicLink(atPath: dir.url("models/m"), withDestinationPath: Self.modelFolder)
        let key = try SecretKey.generate()
        var events: [(String, Bool)] = []
        let first = try TreePublisher.publish(catalogDirectory: catalog, output: dir.url("public"), key: key) { step in
            if case let .embedderPublished(_, _, path, reused) = step { events.append((path, reused)) }
        }
        let offered = try #require(first.catalog.embedders?.first)
        let tides = try #require(first.catalog.corpora.first { $0.id == "tides" })
        #expect(tides.embedder.id == MiniLMEmbedder.identifier && tides.embedder.modelDigest == offered.digest)
        #expect(first.catalog.corpora.first { $0.id == "plain" }?.embedder.modelDigest == nil)
        // The artifact verifies against the publishing key and carries the digest the corpus names.
        let verified = try EmbedderArtifactReader(path: dir.url("public/\(offered.artifact.path)")).verifyAll(trustedKeys: [key.publicKey])
        #expect(verified.digest == offered.digest && verified.manifest.dimension == 384)
        #expect(events.count == 1 && events.first?.1 == false)

        events = []
        let second = try TreePublisher.publish(catalogDirectory: catalog, output: dir.url("public"), key: key) { step in
            if case let .embedderPublished(_, _, path, reused) = step { events.append((path, reused)) }
        }
        #expect(second.reused == ["tides", "plain"])
        #expect(events.count == 1 && events.first?.0 == offered.artifact.path && events.first?.1 == true)
        #expect(second.catalog.embedders == first.catalog.embedders)
    }
}
