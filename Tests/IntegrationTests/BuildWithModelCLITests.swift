import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd build … --embedder all-MiniLM-L6-v2 --model DIR` through the real binaries: the bundle
/// names the model digest `corpusd publish` names for the same folder, and once imported it is
/// searched by meaning (the model arrives in the home through a catalog that offers it, as in
/// `SemanticSearchFlowTests`); a model folder or embedder id that cannot be that is refused with
/// one line, exit 2, and nothing written.
@Suite struct BuildWithModelCLITests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modelFolder = packageRoot.appendingPathComponent("models/all-MiniLM-L6-v2").path
    static var modelAvailable: Bool { FileManager.default.fileExists(atPath: "\(modelFolder)/model.safetensors") }
    static let query = "keep my whole database in RAM"

    static func corpusd(_ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, args, environment: ["PATH": "/usr/bin:/bin"], timeout: 300)
    }

    static func object(_ r: ProcessResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: r.stdoutData)) as? [String: Any] ?? [:]
    }

    /// A folder whose storage passage shares no word with `query`.
    static func writeSource(_ dir: TempDirectory, at folder: String) throws {
        try dir.write("\(folder)/storage.md", "# Storage\n\nThe engine maps the entire index into memory when it starts, so lookups never touch the disk.\n")
        try dir.write("\(folder)/receipts.md", "# Receipts\n\nKeep every receipt in a folder for the whole year.\n\n## Suppliers\n\nThe database of suppliers lists who to call when a delivery is late.\n")
        try dir.write("\(folder)/garden.md", "# Garden\n\nWater the tomatoes early in the morning before the sun is high.\n")
    }

    @Test(.enabled(if: modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func aBundleBuiltWithTheModelNamesPublishsDigestAndIsSearchedByMeaningOnceImported() throws {
        let dir = TempDirectory("build-model")
        #expect(try Self.corpusd(["keygen", "--out", dir.url("keys"), "--name", "root"]).status == 0)
        // A catalog offering the model, for its digest and to bring the model into the home.
        try dir.write("catalog/lamp/lamp.md", "# Lamp\n\nThe lighthouse keeper rotates the lamp every night.\n")
        try FileManager.default.createDirectory(atPath: dir.url("models"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.url("models/all-MiniLM-L6-v2"), withDestinationPath: Self.modelFolder)
        try dir.write("catalog/catalog.json", """
            {"id": "model-home", "title": "Model home",
             "embedders": [{"id": "all-MiniLM-L6-v2", "source": "../models/all-MiniLM-L6-v2"}],
             "corpora": [{"id": "lamp", "version": "1", "source": "lamp", "access": "free", "embedder": "all-MiniLM-L6-v2"}]}
            """)
        let publish = try Self.corpusd(["publish", dir.url("catalog"), "--out", dir.url("public"), "--key", dir.url("keys/root.key"), "--quiet"])
        try #require(publish.status == 0, "\(publish.stderr)")
        let pointer = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.url("public/catalog.json")))) as! [String: Any]
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: dir.url("public/\(pointer["path"] as! String)"))))
        let offered = try #require(catalog.embedders?.first)

        try Self.writeSource(dir, at: "ops")
        let build = try Self.corpusd(["build", dir.url("ops"), "--id", "ops", "--version", "1", "--embedder", "all-MiniLM-L6-v2",
                                      "--model", Self.modelFolder, "--key", dir.url("keys/root.key"), "--out", dir.url("ops-1.corpus.zip"), "--json"])
        try #require(build.status == 0, "\(build.stderr)")
        let named = Self.object(build)["embedder"] as? [String: Any]
        #expect(named?["id"] as? String == "all-MiniLM-L6-v2" && named?["dimension"] as? Int == 384, "\(build.stdout)")
        #expect(named?["digest"] as? String == offered.digest.hex, "\(build.stdout)")
        let manifest = try BundleReader(path: dir.url("ops-1.corpus.zip")).verifyAll(trustedKeys: [PublicKey(contentsOf: dir.url("keys/root.pub"))])
        #expect(manifest.embedder == EmbedderInfo(id: "all-MiniLM-L6-v2", dimension: 384, encoding: "int8", modelDigest: offered.digest))

        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", dir.url("public"), "--listen", "127.0.0.1:{PORT}"])
        defer { server.stop() }
        let client = PublishedTreeClient()
        try client.addRemote(server.url, trust: dir.url("keys/root.pub"))
        let install = try client.run(["install", "lamp"])
        try #require(install.status == 0, "\(install.stderr)")
        let imported = try client.run(["import", dir.url("ops-1.corpus.zip")])
        try #require(imported.status == 0, "\(imported.stderr)")

        let (search, found) = try client.json(["search", Self.query, "--corpus", "local/ops", "-k", "3"])
        #expect(search.status == 0 && !search.stderr.contains("not installed"), "\(search.stderr)")
        let hits = found?["hits"] as? [[String: Any]] ?? []
        let storage = hits.first { $0["document"] as? String == "storage.md" }
        let ranks = storage?["ranks"] as? [String: Any]
        #expect(ranks?["vector"] as? Int == 1 && ranks?["lexical"] is NSNull, "\(hits)")
        let lexical = try client.json(["search", Self.query, "--corpus", "local/ops", "-k", "3", "--lexical-only"]).object?["hits"] as? [[String: Any]] ?? []
        #expect(!lexical.contains { $0["document"] as? String == "storage.md" }, "BM25 alone cannot find it: \(lexical)")
    }

    /// A model folder with every file the artifact carries, none of them the model's.
    static func fakeModel(_ dir: TempDirectory, _ name: String, hidden: Int = 384) throws -> String {
        try dir.write("\(name)/config.json", #"{"model_type": "bert", "hidden_size": \#(hidden), "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 1536, "vocab_size": 30522}"#)
        try dir.write("\(name)/tokenizer_config.json", "{}")
        try dir.write("\(name)/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n")
        // A safetensors file that parses and holds no tensor: 8-byte header length, then "{}".
        try dir.write("\(name)/model.safetensors", Data([2, 0, 0, 0, 0, 0, 0, 0]) + Data("{}".utf8))
        return dir.url(name)
    }

    struct Refusal: Sendable, CustomStringConvertible {
        let name: String
        let args: @Sendable (TempDirectory) throws -> [String]
        let code: String
        let message: @Sendable (TempDirectory) -> String
        var description: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "unknown embedder id", args: { ["--embedder", "e5-small-v2", "--model", $0.url("models")] }, code: "unknown-embedder",
                message: { _ in #"unknown embedder "e5-small-v2": this build embeds with hash-uni-bi-384-v1, all-MiniLM-L6-v2, bge-small-en-v1.5 or snowflake-arctic-embed-m-v1.5"# }),
        Refusal(name: "model embedder without --model", args: { _ in ["--embedder", "all-MiniLM-L6-v2"] }, code: "usage",
                message: { _ in "--embedder all-MiniLM-L6-v2 needs --model DIR" }),
        Refusal(name: "--model for the model-free embedder", args: { ["--model", $0.url("models")] }, code: "usage",
                message: { "--model \($0.url("models")) was given, but hash-uni-bi-384-v1 (the default embedder) has no model" }),
        Refusal(name: "no such folder", args: { ["--embedder", "all-MiniLM-L6-v2", "--model", $0.url("nowhere")] }, code: "model-folder",
                message: { "\($0.url("nowhere")) is not a model folder of all-MiniLM-L6-v2: there is no such folder" }),
        Refusal(name: "a folder without the model's files",
                args: { d in try FileManager.default.createDirectory(atPath: d.url("empty"), withIntermediateDirectories: true)
                    return ["--embedder", "all-MiniLM-L6-v2", "--model", d.url("empty")] },
                code: "model-folder", message: { "\($0.url("empty")) is not a model folder of all-MiniLM-L6-v2: it has no config.json" }),
        Refusal(name: "another model's configuration",
                args: { ["--embedder", "all-MiniLM-L6-v2", "--model", try fakeModel($0, "bert-base", hidden: 768)] }, code: "model-folder",
                message: { "\($0.url("bert-base")) is not a model folder of all-MiniLM-L6-v2: config.json says hidden_size 768, all-MiniLM-L6-v2 has 384" }),
        Refusal(name: "weights that are not the model's",
                args: { ["--embedder", "all-MiniLM-L6-v2", "--model", try fakeModel($0, "hollow")] }, code: "model-folder",
                message: { "\($0.url("hollow")) is not a model folder of all-MiniLM-L6-v2: its weights or vocabulary do not load as all-MiniLM-L6-v2" }),
        Refusal(name: "a model file linked from outside",
                args: { d in let folder = try fakeModel(d, "linked")
                    try FileManager.default.removeItem(atPath: "\(folder)/vocab.txt")
                    try d.write("outside/vocab.txt", "[PAD]\n")
                    try FileManager.default.createSymbolicLink(atPath: "\(folder)/vocab.txt", withDestinationPath: d.url("outside/vocab.txt"))
                    return ["--embedder", "all-MiniLM-L6-v2", "--model", folder] },
                code: "link-outside", message: { "\($0.url("linked"))/vocab.txt is a symbolic link leading outside \($0.url("linked"))" }),
    ]

    @Test(arguments: refusals)
    func aWrongEmbedderOrModelFolderIsRefusedWithOneLineAndNothingWritten(_ refusal: Refusal) throws {
        let dir = TempDirectory("build-model-refusal")
        #expect(try Self.corpusd(["keygen", "--out", dir.url("keys"), "--name", "root"]).status == 0)
        try Self.writeSource(dir, at: "ops")
        try dir.write("out/keep.txt", "the output folder, before")
        let extra = try refusal.args(dir)
        let before = DirectorySnapshot(dir.url("out"))
        let base = ["build", dir.url("ops"), "--id", "ops", "--version", "1", "--key", dir.url("keys/root.key"), "--out", dir.url("out/ops-1.corpus.zip")]

        let human = try Self.corpusd(base + extra)
        #expect(human.status == 2, "\(human.stderr)")
        let lines = human.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("error: \(refusal.message(dir))") == true, "\(human.stderr)")
        let json = try Self.corpusd(base + extra + ["--json"])
        #expect(json.status == 2)
        #expect((Self.object(json)["error"] as? [String: Any])?["code"] as? String == refusal.code, "\(json.stdout)")
        #expect(DirectorySnapshot(dir.url("out")) == before, "\(DirectorySnapshot(dir.url("out")))")
    }
}
