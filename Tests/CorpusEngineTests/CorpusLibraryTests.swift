import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport

/// An embedder with another id, standing in for a corpus built with a different model.
struct OtherEmbedder: Embedder {
    let id = "other-model-v2"
    let dimension = 384
    func embed(_ texts: [String]) throws -> [[Float]] { try HashingEmbedder().embed(texts) }
}

@Suite struct CorpusLibraryTests {
    static let sea = ["guide/lamp.md": ["The lighthouse keeper rotates the lamp every night.", "Fog horns sound when the lamp cannot be seen."],
                      "guide/boats.md": ["Small boats shelter in the harbour during storms.", "A harbour wall breaks the waves."]]

    @Test func hybridSearchReturnsFusedHitsWithProvenance() async throws {
        let home = TempDirectory("lib")
        var f = PackFixture(id: "sea", version: "3", remote: "main", texts: Self.sea)
        f.documents[1].passages[0].section = "Keeping > The lamp"
        try f.install(home: home.path)
        let library = CorpusLibrary(home: home.path)
        let hits = try await library.search("lighthouse lamp")
        let top = try #require(hits.first)
        #expect(top.corpus == "sea" && top.remote == "main" && top.version == "3")
        #expect(top.document == "guide/lamp.md" && top.documentTitle == "lamp")
        #expect(top.section == "Keeping > The lamp")
        #expect(top.text == "The lighthouse keeper rotates the lamp every night.")
        #expect(top.snippet == "The «lighthouse» keeper rotates the «lamp» every night.")
        #expect(top.lexicalRank == 1 && top.vectorRank == 1)
        // A hashing-embedder corpus is fused lexical first: the score is 1 / (60 + place).
        #expect(abs(top.score - 1.0 / 61) < 1e-12)
        #expect(top.passageID == PassageID.make(documentPath: "guide/lamp.md", section: "Keeping > The lamp", ordinal: 0, text: top.text))
        #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >))
        // The other "lamp" passage is found too, by both channels, second.
        #expect(hits.count >= 2 && hits[1].text.hasPrefix("Fog horns"))
    }

    @Test func emptyOrSymbolOnlyQueryFindsNothingWithoutError() async throws {
        let home = TempDirectory("lib")
        try PackFixture(id: "sea", texts: Self.sea).install(home: home.path)
        let library = CorpusLibrary(home: home.path)
        for q in ["", "🙂🙂", "\"*()-:"] { #expect(try await library.search(q).isEmpty) }
    }

    @Test func embedderMismatchIsRefusedUnlessLexicalOnly() async throws {
        let home = TempDirectory("lib")
        var f = PackFixture(id: "sea", texts: Self.sea)
        f.embedder = OtherEmbedder()
        try f.install(home: home.path)
        let before = DirectorySnapshot(home.path)
        let library = CorpusLibrary(home: home.path)
        do {
            _ = try await library.search("harbour")
            Issue.record("searched vectors made by another embedder")
        } catch let error as EngineError {
            #expect(error == .embedderMismatch(corpus: "local/sea", corpusEmbedder: "other-model-v2 (384 dimensions)",
                                               queryEmbedder: "hash-uni-bi-384-v1 (384 dimensions)"))
            #expect(error.description.contains("other-model-v2") && error.description.contains(HashingEmbedder.identifier))
        }
        #expect(DirectorySnapshot(home.path) == before)
        for options in [SearchOptions(lexicalOnly: true), SearchOptions(lexicalOnlyCorpora: ["sea"]), SearchOptions(lexicalOnlyCorpora: ["local/sea"])] {
            let hits = try await library.search("harbour", options: options)
            #expect(hits.count == 2)
            #expect(hits.allSatisfy { $0.vectorRank == nil && $0.lexicalRank != nil })
        }
    }

    @Test func corporaInterleaveByFusedRank() async throws {
        let home = TempDirectory("lib")
        let texts = ["harbour lights at dusk", "the harbour in winter", "a quiet harbour town"]
        // Same passages in two corpora: equal per-corpus ranks in both channels.
        try PackFixture(id: "sea", texts: ["a.md": texts]).install(home: home.path)
        try PackFixture(id: "lake", remote: "other", texts: ["b.md": texts]).install(home: home.path)
        let library = CorpusLibrary(home: home.path)
        // Lexical only: each corpus ranks its own passages 1, 2, 3; equal ranks fuse to equal
        // scores, so the corpora alternate (in remote/id order) instead of one filling the top.
        let lexical = try await library.search("harbour", options: SearchOptions(k: 6, lexicalOnly: true))
        try #require(lexical.count == 6)
        #expect(lexical.map(\.corpus) == ["sea", "lake", "sea", "lake", "sea", "lake"])
        #expect(lexical.map(\.remote) == ["local", "other", "local", "other", "local", "other"])
        for pair in stride(from: 0, to: 6, by: 2) {
            #expect(lexical[pair].score == lexical[pair + 1].score && lexical[pair].text == lexical[pair + 1].text)
            #expect(lexical[pair].lexicalRank == pair / 2 + 1 && lexical[pair + 1].lexicalRank == pair / 2 + 1)
        }
        #expect(lexical[0].score > lexical[2].score && lexical[2].score > lexical[4].score)
        // Hybrid by RRF: lexical ranks are per corpus, vector ranks are global (cosines of one
        // embedder compare across corpora), so the same passage in both corpora fuses to (nearly)
        // the same score: every passage appears once per corpus, within a hair of its twin.
        var rrf = SearchOptions(k: 6)
        rrf.modelFreeFusion = .reciprocalRank
        let hybrid = try await library.search("harbour", options: rrf)
        try #require(hybrid.count == 6)
        #expect(hybrid.map(\.score) == hybrid.map(\.score).sorted(by: >))
        for text in texts {
            let twins = hybrid.filter { $0.text == text }
            try #require(twins.count == 2, "\(text)")
            #expect(Set(twins.map(\.corpus)) == ["sea", "lake"])
            #expect(abs(twins[0].score - twins[1].score) < 0.001)
        }
        #expect(hybrid.allSatisfy { $0.lexicalRank != nil && $0.vectorRank != nil })
        // The default for these hashing corpora (lexical first) orders by the lexical list, where
        // twins hold the same rank, and breaks the tie by their own cosines.
        let scored = try await library.search("harbour", options: SearchOptions(k: 6))
        #expect(scored.map(\.score) == scored.map(\.score).sorted(by: >))
        for text in texts {
            let twins = scored.filter { $0.text == text }
            try #require(twins.count == 2, "\(text)")
            #expect(Set(twins.map(\.corpus)) == ["sea", "lake"] && twins[0].lexicalRank == twins[1].lexicalRank)
        }
        // A subset keeps the remote/id order, whatever order the request names them in.
        try PackFixture(id: "bay", remote: "zzz", texts: ["c.md": ["harbour winter", "winter"]]).install(home: home.path)
        let mixed = try await library.search("harbour", options: SearchOptions(k: 3, corpora: ["bay", "sea"], lexicalOnly: true))
        #expect(mixed.map(\.corpus) == ["sea", "bay", "sea"])
        // Subsets by id and by remote/id.
        #expect(try await library.search("harbour", options: SearchOptions(corpora: ["lake"])).allSatisfy { $0.corpus == "lake" })
        #expect(try await library.search("harbour", options: SearchOptions(corpora: ["local/sea"])).allSatisfy { $0.corpus == "sea" })
        await #expect(throws: EngineError.corpusNotFound("river")) {
            _ = try await library.search("harbour", options: SearchOptions(corpora: ["river"]))
        }
    }

    @Test func installsAndRemovalsAppearWithoutRestart() async throws {
        let home = TempDirectory("lib")
        let library = CorpusLibrary(home: home.path)
        #expect(try await library.search("harbour").isEmpty)
        try PackFixture(id: "sea", texts: Self.sea).install(home: home.path)
        #expect(try await library.search("harbour").map(\.corpus) == ["sea", "sea"])
        // An update: version 2 swapped in under the same library.
        try PackFixture(id: "sea", version: "2", texts: ["new.md": ["A new harbour chapter."]]).install(home: home.path)
        let updated = try await library.search("harbour")
        #expect(updated.map(\.version) == ["2"] && updated.map(\.document) == ["new.md"])
        // Removal.
        try FileManager.default.removeItem(atPath: "\(home.path)/corpora/local/sea")
        #expect(try await library.search("harbour").isEmpty)
        #expect(try library.installed().isEmpty)
    }

    /// Another process swaps `current` between two versions (symlink + rename, as the installer
    /// does) while this one searches: every search succeeds with hits from one version only.
    @Test func searchesStayConsistentWhileAnotherProcessSwapsVersions() async throws {
        let home = TempDirectory("swap")
        let one = (0..<6).map { "edition one harbour passage \($0) alpha" }
        let two = (0..<9).map { "edition two harbour passage \($0) beta" }
        try PackFixture(id: "sea", version: "1", texts: ["one.md": one]).install(home: home.path)
        try PackFixture(id: "sea", version: "2", texts: ["two.md": two]).install(home: home.path, makeCurrent: false)
        let corpusDir = "\(home.path)/corpora/local/sea"

        let swapper = Process()
        swapper.executableURL = URL(fileURLWithPath: "/bin/sh")
        swapper.arguments = ["-c", """
            cd "$1" || exit 1
            while :; do
              ln -sfn versions/2 .swap && mv -T .swap current
              ln -sfn versions/1 .swap && mv -T .swap current
            done
            """, "sh", corpusDir]
        try swapper.run()
        defer {
            swapper.terminate()
            swapper.waitUntilExit()
        }

        let library = CorpusLibrary(home: home.path)
        var seen = Set<String>()
        var searches = 0
        let deadline = Date().addingTimeInterval(60)
        // Enough searches to straddle many swaps; stop early once both versions were seen.
        while searches < 300 || (seen.count < 2 && Date() < deadline) {
            let hits = try await library.search("harbour passage", options: SearchOptions(k: 20))
            searches += 1
            let versions = Set(hits.map(\.version))
            #expect(versions.count == 1, "hits from \(versions) in one search")
            guard let version = versions.first else { Issue.record("no hits"); break }
            let expected = version == "1" ? (one, "one.md") : (two, "two.md")
            #expect(hits.count == expected.0.count)
            #expect(hits.allSatisfy { expected.0.contains($0.text) && $0.document == expected.1 })
            seen.insert(version)
            if searches > 5000 { break }
        }
        #expect(swapper.isRunning, "the swapping process died early")
        #expect(seen == ["1", "2"], "saw only \(seen) in \(searches) searches")
    }
}
