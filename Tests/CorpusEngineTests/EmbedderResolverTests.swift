import Foundation
import Testing
import Synchronization
import CorpusFormat
@testable import CorpusEngine
import CorpusTestSupport

/// Stands in for a model-based embedder without the weights: MiniLM's id, a model digest, and
/// hashing vectors, so refusals can be tested on machines without the model.
struct StandInModelEmbedder: Embedder {
    let id = MiniLMEmbedder.identifier
    let dimension = 384
    let modelDigest: SHA256Digest?
    func embed(_ texts: [String]) throws -> [[Float]] { try HashingEmbedder().embed(texts) }
}

/// Counts the texts it embeds, to check that a search embeds its query once per embedder.
final class CountingEmbedder: Embedder {
    let id = HashingEmbedder.identifier
    let dimension = 384
    let count = Mutex(0)
    func embed(_ texts: [String]) throws -> [[Float]] {
        count.withLock { $0 += texts.count }
        return try HashingEmbedder().embed(texts)
    }
}

@Suite struct EmbedderResolverTests {
    /// Installs a model artifact made from the files in `modelFolder` into `home` as
    /// `embedders/all-MiniLM-L6-v2/<digest>/`, as the client would; returns the digest.
    static func installModel(from modelFolder: String, home: String) throws -> SHA256Digest {
        let key = try SecretKey.generate()
        let artifact = "\(home)/../model-\(UUID().uuidString).embedder.zip"
        defer { FileIO.remove(artifact) }
        let (_, digest) = try EmbedderArtifactWriter.write(modelDirectory: modelFolder, id: MiniLMEmbedder.identifier, dimension: 384,
                                                           key: key, to: artifact)
        let layout = HomeLayout(root: home)
        try FileIO.createDirectory(layout.embedders)
        try FileIO.createDirectory("\(layout.embedders)/\(MiniLMEmbedder.identifier)")
        try EmbedderArtifactReader(path: artifact).extract(to: layout.embedderDirectory(id: MiniLMEmbedder.identifier, digest: digest),
                                                           trustedKeys: [key.publicKey])
        return digest
    }

    /// A model folder of placeholder files: enough to install, not to load.
    static func placeholderModel(_ dir: TempDirectory) throws -> String {
        for name in EmbedderArtifactLayout.payloadMembers { _ = try dir.write("fake-model/\(name)", "placeholder \(name)") }
        return dir.url("fake-model")
    }

    static let storage: [String: [String]] = [
        "guide/storage.md": ["The engine maps the entire index into memory when it starts, so lookups never touch the disk."],
        "guide/receipts.md": ["Keep every receipt in a folder for the whole year.",
                              "The database of suppliers lists who to call when a delivery is late."],
        "guide/garden.md": ["Water the tomatoes early in the morning before the sun is high."],
    ]

    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func aModelCorpusIsSearchedByMeaningWithTheInstalledModel() async throws {
        let dir = TempDirectory("resolver")
        let home = dir.url("home")
        try FileIO.createDirectory(home)
        let digest = try Self.installModel(from: MiniLMFixtures.modelDirectory.path, home: home)
        var model = try MiniLMFixtures.embedder()
        model.modelDigest = digest
        var corpus = PackFixture(id: "ops", texts: Self.storage)
        corpus.embedder = model
        try corpus.install(home: home)
        // A hashing corpus beside it keeps working with the default embedder.
        try PackFixture(id: "sea", texts: CorpusLibraryTests.sea).install(home: home)

        let library = CorpusLibrary(home: home)
        let query = "keep my whole database in RAM"
        let lexical = try await library.search(query, options: SearchOptions(k: 10, corpora: ["ops"], lexicalOnly: true))
        #expect(!lexical.contains { $0.document == "guide/storage.md" }, "BM25 alone cannot find it: no word in common")

        let hybrid = try await library.search(query, options: SearchOptions(k: 3, corpora: ["ops"]))
        let hit = try #require(hybrid.first { $0.document == "guide/storage.md" })
        #expect(hit.vectorRank == 1 && hit.lexicalRank == nil)
        // The model was loaded from HOME/embedders and is shared from now on.
        let loaded = try library.embedders.embedder(for: EmbedderInfo(id: model.id, dimension: 384, encoding: "int8", modelDigest: digest), corpus: "x")
        #expect(loaded.modelDigest == digest)
        let sea = try await library.search("lighthouse lamp", options: SearchOptions(k: 1))
        #expect(sea.first?.corpus == "sea" && sea.first?.vectorRank == 1)
    }

    @Test func aCorpusWhoseModelDigestIsNotInstalledIsRefusedUnlessLexicalOnly() async throws {
        let dir = TempDirectory("resolver")
        let home = dir.url("home")
        try FileIO.createDirectory(home)
        let installed = try Self.installModel(from: try Self.placeholderModel(dir), home: home)
        let wanted = SHA256Digest.filled("5")
        var corpus = PackFixture(id: "ops", texts: Self.storage)
        corpus.embedder = StandInModelEmbedder(modelDigest: wanted)
        try corpus.install(home: home)
        let before = DirectorySnapshot(home)

        let library = CorpusLibrary(home: home)
        await #expect(throws: EngineError.embedderNotInstalled(corpus: "local/ops", embedder: MiniLMEmbedder.identifier, digest: wanted,
                                                               installed: [installed])) {
            try await library.search("database in memory")
        }
        let lexical = try await library.search("database", options: SearchOptions(lexicalOnlyCorpora: ["ops"]))
        #expect(lexical.first?.document == "guide/receipts.md")
        #expect(DirectorySnapshot(home) == before)
    }

    @Test func aTamperedModelFolderIsRefusedAsAVerificationFailure() async throws {
        let dir = TempDirectory("resolver")
        let home = dir.url("home")
        try FileIO.createDirectory(home)
        let digest = try Self.installModel(from: try Self.placeholderModel(dir), home: home)
        var corpus = PackFixture(id: "ops", texts: Self.storage)
        corpus.embedder = StandInModelEmbedder(modelDigest: digest)
        try corpus.install(home: home)
        // Another model's description dropped into the folder of this digest.
        let json = HomeLayout(root: home).embedderDirectory(id: MiniLMEmbedder.identifier, digest: digest) + "/embedder.json"
        let edited = try String(contentsOfFile: json, encoding: .utf8).replacingOccurrences(of: "\"dimension\":384", with: "\"dimension\":385")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: json))

        let library = CorpusLibrary(home: home)
        do {
            _ = try await library.search("database in memory")
            Issue.record("a model folder that does not hash to the corpus's digest must be refused")
        } catch let e as EngineError {
            guard case let .embedderModelMismatch(corpus, embedder, d, reason) = e else { Issue.record("got \(e)"); return }
            #expect(corpus == "local/ops" && embedder == MiniLMEmbedder.identifier && d == digest)
            #expect(reason.contains("SHA-256"))
            #expect(e.isVerificationRefusal)
        }
    }

    @Test func aMalformedDigestNeverBecomesAPath() throws {
        let resolver = EmbedderResolver(home: TempDirectory("resolver").path)
        // The digest is refused where the manifest decodes: no `EmbedderInfo` can hold "../../etc".
        let json = #"{"digest":"../../etc","dimension":384,"encoding":"int8","id":"all-MiniLM-L6-v2"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EmbedderInfo.self, from: Data(json.utf8)) }
        // An id that would climb out of `embedders/` is refused by the resolver.
        let info = EmbedderInfo(id: "../../etc", dimension: 384, encoding: "int8", modelDigest: .filled("7"))
        #expect(throws: EngineError.embedderUnsupported(corpus: "c", embedder: "../../etc", reason: "its id or digest is malformed")) {
            try resolver.embedder(for: info, corpus: "c")
        }
    }

    @Test func theQueryIsEmbeddedOncePerDistinctEmbedder() async throws {
        let home = TempDirectory("resolver")
        let counting = CountingEmbedder()
        for id in ["a", "b", "c"] {
            var f = PackFixture(id: id, texts: CorpusLibraryTests.sea)
            f.embedder = counting
            try f.install(home: home.path)
        }
        counting.count.withLock { $0 = 0 }
        let hits = try await CorpusLibrary(home: home.path, embedder: counting).search("harbour wall")
        #expect(Set(hits.map(\.corpus)) == ["a", "b", "c"])
        #expect(counting.count.withLock { $0 } == 1)
    }
}

@Suite struct ModelVectorListTests {
    /// One model's cosines are comparable across corpora, so corpora embedded with one model share
    /// one vector list: the weak match of an unrelated corpus no longer gets vector rank 1.
    @Test func corporaOfOneModelShareOneVectorListRankedByScore() async throws {
        let home = TempDirectory("model-lists")
        let model = StandInModelEmbedder(modelDigest: .filled("7"))
        let texts = [("sea", ["the harbour wall breaks the waves", "the harbour in winter"]), ("garden", ["the tomatoes in the garden"])]
        for (id, passages) in texts {
            var f = PackFixture(id: id, texts: ["\(id).md": passages])
            f.embedder = model
            try f.install(home: home.path)
        }
        let hits = try await CorpusLibrary(home: home.path, embedder: model).search("the harbour wall", options: SearchOptions(k: 5))
        let garden = try #require(hits.first { $0.corpus == "garden" })
        #expect(garden.vectorRank == 3)
        #expect(hits.first?.text == "the harbour wall breaks the waves")

        // The model-free hashing embedder shares one list per embedder too: the unrelated garden
        // passage (no content word in common once "the" is dropped) never takes vector rank 1.
        let plain = TempDirectory("model-lists")
        for (id, passages) in texts { try PackFixture(id: id, texts: ["\(id).md": passages]).install(home: plain.path) }
        let shared = try await CorpusLibrary(home: plain.path).search("the harbour wall", options: SearchOptions(k: 5))
        #expect(shared.first?.text == "the harbour wall breaks the waves")
        #expect((shared.first { $0.corpus == "garden" }?.vectorRank ?? Int.max) > 1)
    }
}
