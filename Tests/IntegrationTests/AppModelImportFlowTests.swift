import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Imports keep the apps' own vectors, and the query side embeds with the apps' own models: a
/// knowledge-app `Corpus/` folder with bge-small vectors and a reader-app `.corpus.zip` with
/// arctic-embed-m vectors (both made by the random-weight models of `RandomModels` through the
/// NumPy reference) are published by the real `corpusd publish` with those model folders, served
/// on loopback and installed by the real `corpus` client, which installs both models. The vector
/// channel's top hit for each query is the one the NumPy reference ranks first from the source's
/// own vectors and its query embedding (the query prompt applied: bge-small's declared in
/// catalog.json, arctic-embed-m's from its folder). A corpus searched with another model's files
/// in place of its own is refused with the existing mismatch error.
@Suite struct AppModelImportFlowTests {
    static let bgePrompt = "Represent this sentence for searching relevant passages: "
    static let queries = ["tide harbour lantern at the pier", "a gull over the reef in a squall", "the moon and the ebb of the current",
                          "anchor the hull in the lagoon", "beacon on the jetty", "drift of the estuary fathom"]

    /// `scripts/bert_reference.py embed`: the reference's unit vectors for `texts`.
    static func reference(_ folder: String, _ texts: [String], queryPrompt: String? = nil) throws -> [[Float]] {
        var args = [RandomModels.script, "embed", "--model", folder]
        if let queryPrompt { args += ["--query", "--query-prompt", queryPrompt] }
        let r = try ProcessRunner.run(RandomModels.python, args + texts, timeout: 600)
        guard r.status == 0 else { throw IntegrationError("reference embed: \(r.stderr)") }
        let object = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
        return (object?["vectors"] as? [[Double]] ?? []).map { $0.map(Float.init) }
    }

    /// For each query, the index of the source row the reference ranks first, when it leads the
    /// second by more than the int8 rounding of stored vectors could move (else nil): a row
    /// rounded to int8 moves a cosine with a unit query by about 3e-4 (σ) at 384 dimensions.
    static func expectedTop(_ queries: [[Float]], rows: [[Float]]) -> [Int?] {
        queries.map { q in
            let scores = rows.map { RandomModels.cosine(q, $0) }
            let order = scores.indices.sorted { scores[$0] > scores[$1] }
            return scores[order[0]] - scores[order[1]] > 0.003 ? order[0] : nil
        }
    }

    @Test(.enabled(if: RandomModels.available, "\(RandomModels.absentMessage)"))
    func importedVectorsAreKeptAndSearchedWithTheAppsOwnModels() throws {
        let dir = TempDirectory("app-models")
        let bgeFolder = try RandomModels.folder(.bgeSmall, .f32)
        let arcticFolder = try RandomModels.folder(.arcticEmbedM, .bf16)
        let corpusd = BuiltProducts.corpusd
        #expect(try ProcessRunner.run(corpusd, ["keygen", "--out", dir.url("keys"), "--name", "root"]).status == 0)

        // The knowledge app's folder: its passages embedded by the bge-small-shaped model, stored int8.
        var shelf = KnowledgeAppFixture(books: 3, passagesPerBook: 5)
        shelf.withNews = false
        let corpusFolder = dir.url("catalog/Corpus")
        try shelf.write(to: corpusFolder)
        let shelfRows = try SQLiteShell.rows("\(corpusFolder)/gutenberg.pack", "SELECT id || char(9) || text FROM passages ORDER BY rowid")
            .map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
        let shelfVectors = try Self.reference(bgeFolder, shelfRows.map { $0[1] })
        let shelfInt8 = shelfVectors.map { v in v.map { Int8(($0 * 127 / v.map(\.magnitude).max()!).rounded()) } }
        try shelfInt8.flatMap { $0 }.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: "\(corpusFolder)/gutenberg.vectors")) }

        // The reader app's bundle: its chunks embedded by the arctic-embed-m-shaped model, f32.
        var book = ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 6)
        let bookVectors = try Self.reference(arcticFolder, book.chunks.map(\.text))
        book.vectors = bookVectors.flatMap { $0 }
        try FileManager.default.createDirectory(atPath: dir.url("catalog"), withIntermediateDirectories: true)
        try book.write(to: dir.url("catalog/tides.corpus.zip"))

        try dir.write("catalog/catalog.json", """
            {"id": "apps", "title": "The apps' corpora",
             "embedders": [{"id": "bge-small-en-v1.5", "source": "\(bgeFolder)", "query_prompt": "\(Self.bgePrompt)"},
                           {"id": "snowflake-arctic-embed-m-v1.5", "source": "\(arcticFolder)"}],
             "corpora": [
               {"id": "shelf", "version": "1", "source": "Corpus", "from": "knowledgepress", "access": "free", "embedder": "bge-small-en-v1.5"},
               {"id": "tides", "version": "1", "source": "tides.corpus.zip", "from": "corpuskit", "access": "free", "embedder": "snowflake-arctic-embed-m-v1.5"}]}
            """)
        let publish = try ProcessRunner.run(corpusd, ["publish", dir.url("catalog"), "--out", dir.url("public"), "--key", dir.url("keys/root.key"), "--json"], timeout: 900)
        try #require(publish.status == 0, "\(publish.stderr)")
        let pointer = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.url("public/catalog.json")))) as! [String: Any]
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: dir.url("public/\(pointer["path"] as! String)"))))
        let offered = Dictionary(uniqueKeysWithValues: (catalog.embedders ?? []).map { ($0.id, $0) })
        #expect(Set(offered.keys) == ["bge-small-en-v1.5", "snowflake-arctic-embed-m-v1.5"])
        for (id, model) in [("shelf", "bge-small-en-v1.5"), ("tides", "snowflake-arctic-embed-m-v1.5")] {
            let entry = try #require(catalog.corpora.first { $0.id == id })
            #expect(entry.embedder.id == model && entry.embedder.modelDigest == offered[model]?.digest, "\(id)")
        }

        let server = try ServerProcess(corpusd, ["serve", dir.url("public"), "--listen", "127.0.0.1:{PORT}"])
        defer { server.stop() }
        let client = PublishedTreeClient()
        #expect(try client.addRemote(server.url, trust: dir.url("keys/root.pub")).status == 0)
        let install = try client.run(["install", "shelf", "tides"], timeout: 900)
        try #require(install.status == 0, "\(install.stderr)")
        // The settings travel signed with the model: bge-small's declared query prompt among them.
        let bgeDir = HomeLayout(root: client.home).embedderDirectory(id: "bge-small-en-v1.5", digest: offered["bge-small-en-v1.5"]!.digest)
        let bgeManifest = try InstalledEmbedder.check(directory: bgeDir, id: "bge-small-en-v1.5", digest: offered["bge-small-en-v1.5"]!.digest)
        #expect(bgeManifest.encoderSettings.queryPrompt == Self.bgePrompt && bgeManifest.encoderSettings.pooling == .cls)

        // The source's vectors are kept: each published row is the source row, normalized and
        // quantized (the documented int8 rounding), in the source's order.
        for (id, source) in [("shelf", shelfInt8.map { $0.map(Float.init) }), ("tides", bookVectors)] {
            let entry = try #require(catalog.corpora.first { $0.id == id })
            let rows = try VectorRows(bundle: dir.url("public/\(entry.bundle.path)"), key: dir.url("keys/root.pub"))
            #expect(rows.rows == source.count, "\(id)")
            for r in 0..<source.count {
                let norm = source[r].reduce(0) { $0 + $1 * $1 }.squareRoot()
                #expect(rows.row(r) == Int8Quantizer.quantize(source[r].map { $0 / norm }).values, "\(id) row \(r)")
            }
        }

        // The vector channel's first hit is the reference's, for each query with a clear leader.
        for (corpus, folder, prompt, ids, rows) in [
            ("shelf", bgeFolder, Self.bgePrompt, shelfRows.map { $0[0] }, shelfInt8.map { $0.map(Float.init) }),
            ("tides", arcticFolder, "query: ", book.chunks.map { $0.id! }, bookVectors),
        ] {
            let expected = Self.expectedTop(try Self.reference(folder, Self.queries, queryPrompt: prompt), rows: rows)
            #expect(expected.compactMap { $0 }.count >= 3, "\(corpus): too few queries with a clear leader: \(expected)")
            // Without the prompt some query leads elsewhere, so matching shows the prompt was applied.
            let unprompted = Self.expectedTop(try Self.reference(folder, Self.queries, queryPrompt: ""), rows: rows)
            #expect(zip(expected, unprompted).contains { $0 != nil && $0 != $1 }, "\(corpus): \(expected) \(unprompted)")
            for (q, top) in zip(Self.queries, expected) {
                guard let top else { continue }
                let (r, object) = try client.json(["search", q, "--corpus", corpus, "-k", "20"])
                #expect(r.status == 0, "\(r.stderr)")
                let hits = object?["hits"] as? [[String: Any]] ?? []
                let first = hits.first { ($0["ranks"] as? [String: Any])?["vector"] as? Int == 1 }
                #expect(first?["passage"] as? String == ids[top], "\(corpus) \(q.debugDescription): \(hits.prefix(3))")
            }
        }

        // The arctic corpus searched with bge-small's files in its model's place: the mismatch error.
        let arcticDir = HomeLayout(root: client.home).embedderDirectory(id: "snowflake-arctic-embed-m-v1.5", digest: offered["snowflake-arctic-embed-m-v1.5"]!.digest)
        for name in ["embedder.json", "embedder.json.minisig"] + EmbedderArtifactLayout.payloadMembers {
            try FileManager.default.removeItem(atPath: "\(arcticDir)/\(name)")
            try FileManager.default.copyItem(atPath: "\(bgeDir)/\(name)", toPath: "\(arcticDir)/\(name)")
        }
        let (mismatch, object) = try client.json(["search", Self.queries[0], "--corpus", "tides"])
        #expect(mismatch.status == 3, "\(mismatch.stdout) \(mismatch.stderr)")
        #expect((object?["error"] as? [String: Any])?["code"] as? String == "embedder-mismatch", "\(mismatch.stdout)")
    }
}
