import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// "A client with only the catalog URL and its pinned key ends up with a working semantic search":
/// the real `corpusd publish` builds a corpus with all-MiniLM-L6-v2 and publishes the model as a
/// signed artifact, the real `corpusd serve` serves it on loopback, and the real `corpus` client
/// installs the corpus, which pulls the model, verified, into HOME/embedders; a question that
/// shares no word with its answer is then answered. Needs the weights (scripts/fetch-model.sh).
@Suite struct SemanticSearchFlowTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modelFolder = packageRoot.appendingPathComponent("models/all-MiniLM-L6-v2").path
    static var modelAvailable: Bool { FileManager.default.fileExists(atPath: "\(modelFolder)/model.safetensors") }
    static let query = "keep my whole database in RAM"

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:] }
    }

    static func run(_ tool: String, _ args: [String]) throws -> Run {
        let r = try ProcessRunner.run(tool, args, environment: ["PATH": "/usr/bin:/bin"])
        return Run(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    /// A catalog folder with one MiniLM corpus whose storage passage shares no word with `query`,
    /// and one hashing corpus; the model folder is linked in as `models/all-MiniLM-L6-v2`.
    static func writeCatalog(_ dir: TempDirectory) throws -> String {
        try dir.write("catalog/ops/storage.md", "# Storage\n\nThe engine maps the entire index into memory when it starts, so lookups never touch the disk.\n")
        try dir.write("catalog/ops/receipts.md", "# Receipts\n\nKeep every receipt in a folder for the whole year.\n\n## Suppliers\n\nThe database of suppliers lists who to call when a delivery is late.\n")
        try dir.write("catalog/ops/garden.md", "# Garden\n\nWater the tomatoes early in the morning before the sun is high.\n")
        try dir.write("catalog/sea/lamp.md", "# Lamp\n\nThe lighthouse keeper rotates the lamp every night.\n")
        try FileManager.default.createDirectory(atPath: dir.url("models"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.url("models/all-MiniLM-L6-v2"), withDestinationPath: modelFolder)
        try dir.write("catalog/catalog.json", """
            {"id": "semantic-demo", "title": "Semantic demo",
             "embedders": [{"id": "all-MiniLM-L6-v2", "source": "../models/all-MiniLM-L6-v2"}],
             "corpora": [
               {"id": "ops", "version": "1", "source": "ops", "access": "free", "embedder": "all-MiniLM-L6-v2"},
               {"id": "sea", "version": "1", "source": "sea", "access": "free"}]}
            """)
        return dir.url("catalog")
    }

    @Test(.enabled(if: modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func theModelArrivesThroughTheCatalogVerifiedAndAnswersByMeaning() throws {
        let dir = TempDirectory("semantic-flow")
        let corpusd = BuiltProducts.corpusd, corpus = BuiltProducts.corpus
        #expect(try Self.run(corpusd, ["keygen", "--out", dir.url("keys"), "--name", "root"]).status == 0)
        let publish = try Self.run(corpusd, ["publish", try Self.writeCatalog(dir), "--out", dir.url("public"), "--key", dir.url("keys/root.key"), "--json"])
        try #require(publish.status == 0, "\(publish.stderr)")
        let pointer = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.url("public/catalog.json")))) as! [String: Any]
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: dir.url("public/\(pointer["path"] as! String)"))))
        let offered = try #require(catalog.embedders?.first)
        let ops = try #require(catalog.corpora.first { $0.id == "ops" })
        #expect(ops.embedder.id == "all-MiniLM-L6-v2" && ops.embedder.modelDigest == offered.digest)
        #expect(catalog.corpora.first { $0.id == "sea" }?.embedder.modelDigest == nil)

        let server = try ServerProcess(corpusd, ["serve", dir.url("public"), "--listen", "127.0.0.1:{PORT}"])
        defer { server.stop() }
        let home = dir.url("home")
        let c = { (args: [String]) throws -> Run in try Self.run(corpus, ["--home", home] + args) }
        #expect(try c(["remote", "add", "demo", server.url, "--trust", dir.url("keys/root.pub")]).status == 0)

        // A tampered artifact on the server: the download is refused and the home is unchanged.
        let artifact = dir.url("public/\(offered.artifact.path)")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: artifact))
        try handle.seek(toOffset: UInt64(offered.artifact.size / 2))
        let original = try #require(try handle.read(upToCount: 1))
        try handle.seek(toOffset: UInt64(offered.artifact.size / 2))
        try handle.write(contentsOf: Data([original[0] ^ 0xff]))
        let before = DirectorySnapshot(home) { $0.hasPrefix("locks") }
        let refused = try c(["install", "ops", "--json"])
        #expect(refused.status == 3, "\(refused.stdout) \(refused.stderr)")
        let after = DirectorySnapshot(home) { $0.hasPrefix("locks") }
        #expect(after == before, "\(Set(after.entries.map { "\($0) \($1)" }).symmetricDifference(before.entries.map { "\($0) \($1)" }))")
        try handle.seek(toOffset: UInt64(offered.artifact.size / 2))
        try handle.write(contentsOf: original)
        try handle.close()

        // The real thing: installing the corpus installs its model, verified, once for both.
        let install = try c(["install", "ops", "sea"])
        try #require(install.status == 0, "\(install.stderr)")
        let modelDir = HomeLayout(root: home).embedderDirectory(id: "all-MiniLM-L6-v2", digest: offered.digest)
        #expect(try InstalledEmbedder.check(directory: modelDir, id: "all-MiniLM-L6-v2", digest: offered.digest).dimension == 384)
        try InstalledEmbedder.verifyAll(directory: modelDir, id: "all-MiniLM-L6-v2", digest: offered.digest)

        let hits = (try c(["search", Self.query, "-k", "3", "--json"]).json["hits"] as? [[String: Any]]) ?? []
        let storage = hits.first { $0["document"] as? String == "storage.md" }
        let ranks = storage?["ranks"] as? [String: Any]
        #expect(ranks?["vector"] as? Int == 1 && ranks?["lexical"] is NSNull, "\(hits)")
        let lexical = (try c(["search", Self.query, "-k", "3", "--lexical-only", "--json"]).json["hits"] as? [[String: Any]]) ?? []
        #expect(!lexical.isEmpty && !lexical.contains { $0["document"] as? String == "storage.md" }, "BM25 alone cannot find it")

        // A model folder that is not the one the corpus names is refused, as a verification failure.
        let json = "\(modelDir)/embedder.json"
        let good = try Data(contentsOf: URL(fileURLWithPath: json))
        try Data(String(decoding: good, as: UTF8.self).replacingOccurrences(of: "\"dimension\":384", with: "\"dimension\":385").utf8)
            .write(to: URL(fileURLWithPath: json))
        let mismatch = try c(["search", Self.query, "--json"])
        #expect(mismatch.status == 3, "\(mismatch.stdout)")
        #expect((mismatch.json["error"] as? [String: Any])?["code"] as? String == "embedder-mismatch")
        try good.write(to: URL(fileURLWithPath: json))

        // A model folder that went missing: search falls back to words and says so; sync restores it.
        FileIO.remove(modelDir)
        let wordsOnly = try c(["search", Self.query, "-k", "3", "--json"])
        #expect(wordsOnly.status == 0 && wordsOnly.stderr.contains("needs the embedder model all-MiniLM-L6-v2, which is not installed"), "\(wordsOnly.stderr)")
        #expect(((wordsOnly.json["hits"] as? [[String: Any]]) ?? []).allSatisfy { ($0["ranks"] as? [String: Any])?["vector"] is NSNull || $0["corpus"] as? String == "sea" })
        let sync = try c(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        try InstalledEmbedder.verifyAll(directory: modelDir, id: "all-MiniLM-L6-v2", digest: offered.digest)
        let again = (try c(["search", Self.query, "-k", "3", "--json"]).json["hits"] as? [[String: Any]]) ?? []
        #expect(again.contains { $0["document"] as? String == "storage.md" && ($0["ranks"] as? [String: Any])?["vector"] as? Int == 1 })

        // gc keeps a model some corpus names, and removes it once none does.
        #expect(((try c(["gc", "--json"]).json["removed_embedders"]) as? [String]) == [])
        #expect(FileIO.exists(modelDir))
        #expect(try c(["remove", "ops"]).status == 0)
        let gc = try c(["gc", "--json"])
        #expect((gc.json["removed_embedders"] as? [String]) == ["all-MiniLM-L6-v2/\(offered.digest)"], "\(gc.stdout)")
        #expect(!FileIO.exists(modelDir))
        // The hashing corpus is untouched and still searchable.
        let sea = (try c(["search", "lighthouse lamp", "--json"]).json["hits"] as? [[String: Any]]) ?? []
        #expect(sea.first?["corpus"] as? String == "sea")
    }
}
