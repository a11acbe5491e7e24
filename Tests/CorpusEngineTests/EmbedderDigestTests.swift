import Foundation
import Testing
import CorpusFormat
@testable import CorpusEngine
import CorpusTestSupport

/// The default embedder is used only for a corpus that names its id, dimension AND model digest:
/// a corpus built with another model under the same id and dimension is refused, never searched
/// with the default's vectors (which would rank noise).
@Suite struct EmbedderDigestTests {
    static let otherDigest = SHA256Digest(hex: String(repeating: "ab", count: 32))!

    @Test func aModelDigestOnTheDefaultsIdIsNotTheModelFreeDefault() throws {
        let home = TempDirectory("digest")
        let resolver = EmbedderResolver(home: home.path)
        let info = EmbedderInfo(id: HashingEmbedder.identifier, dimension: 384, encoding: "int8", modelDigest: Self.otherDigest)
        #expect(throws: EngineError.embedderNotInstalled(corpus: "main/c", embedder: HashingEmbedder.identifier, digest: Self.otherDigest, installed: [])) {
            try resolver.embedder(for: info, corpus: "main/c")
        }
    }

    @Test func anotherDigestThanTheDefaultModelsIsNotTheDefault() throws {
        let home = TempDirectory("digest")
        let mine = SHA256Digest(hex: String(repeating: "cd", count: 32))!
        let resolver = EmbedderResolver(home: home.path, defaultEmbedder: StandInModelEmbedder(modelDigest: mine))
        let same = EmbedderInfo(id: MiniLMEmbedder.identifier, dimension: 384, encoding: "int8", modelDigest: mine)
        #expect(try resolver.embedder(for: same, corpus: "main/c").modelDigest == mine)
        let other = EmbedderInfo(id: MiniLMEmbedder.identifier, dimension: 384, encoding: "int8", modelDigest: Self.otherDigest)
        #expect(throws: EngineError.embedderNotInstalled(corpus: "main/c", embedder: MiniLMEmbedder.identifier, digest: Self.otherDigest, installed: [])) {
            try resolver.embedder(for: other, corpus: "main/c")
        }
    }

    @Test func aSearchOfSuchACorpusIsRefusedUnlessLexicalOnly() async throws {
        let home = TempDirectory("digest")
        var fixture = PackFixture(id: "c", remote: "main", texts: ["a.md": ["The harbour lamp burns all night."]])
        fixture.embedder = StandInModelEmbedder(modelDigest: Self.otherDigest)
        try fixture.install(home: home.path)
        let library = CorpusLibrary(home: home.path, embedder: StandInModelEmbedder(modelDigest: SHA256Digest(hex: String(repeating: "cd", count: 32))!))
        await #expect(throws: EngineError.self) { try await library.search("harbour") }
        var options = SearchOptions()
        options.lexicalOnly = true
        #expect(try await library.search("harbour", options: options).map(\.corpus) == ["c"])
    }
}
