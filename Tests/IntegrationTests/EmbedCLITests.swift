import Foundation
import Testing
import CorpusTestSupport

/// `corpusd embed --model DIR [--query] [--json] TEXT…`, the parity gate, through the real binary:
/// its vectors are sentence-transformers' for MiniLM's real weights and the NumPy reference's for
/// a random-weight bge-small-shaped model, the query prompt applied with `--query`; a folder the
/// encoder cannot honour is refused with one line naming the key, exit 2, and nothing written.
@Suite struct EmbedCLITests {
    static func corpusd(_ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, args, environment: ["PATH": "/usr/bin:/bin"], timeout: 300)
    }

    static func vectors(_ r: ProcessResult) -> [[Float]] {
        let object = (try? JSONSerialization.jsonObject(with: r.stdoutData)) as? [String: Any]
        return (object?["vectors"] as? [[Double]] ?? []).map { $0.map(Float.init) }
    }

    @Test(.enabled(if: BuildWithModelCLITests.modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh"))
    func miniLMsVectorsAreSentenceTransformers() throws {
        let golden = try JSONDecoder().decode(GoldenFile.self, from: Data(contentsOf: RandomModels.packageRoot.appendingPathComponent("Tests/Fixtures/minilm-golden.json")))
        let rows = Array(golden.rows.prefix(6))
        let r = try Self.corpusd(["embed", "--model", BuildWithModelCLITests.modelFolder, "--json"] + rows.map(\.text))
        #expect(r.status == 0, "\(r.stderr)")
        let got = Self.vectors(r)
        #expect(got.count == rows.count)
        for (v, row) in zip(got, rows) { #expect(RandomModels.cosine(v, row.vector) >= 0.99999, "\(row.text)") }

        // Without --json: one line per text, its numbers separated by spaces.
        let human = try Self.corpusd(["embed", "--model", BuildWithModelCLITests.modelFolder, rows[0].text, rows[1].text])
        let lines = human.stdout.split(separator: "\n")
        #expect(human.status == 0 && lines.count == 2 && lines[0].split(separator: " ").count == 384, "\(human.stdout.prefix(200))")
    }

    struct GoldenFile: Decodable {
        struct Row: Decodable { let text: String; let vector: [Float] }
        let rows: [Row]
    }

    /// Passages without a prompt, queries with the one given (bge-small's folder names none).
    @Test(.enabled(if: RandomModels.available, "\(RandomModels.absentMessage)"))
    func passagesAndQueriesMatchTheReference() throws {
        let folder = try RandomModels.folder(.bgeSmall, .f16)
        let reference = try RandomModels.reference(.bgeSmall, .f16)
        let rows = Array(reference.rows.prefix(5))
        let passages = try Self.corpusd(["embed", "--model", folder, "--json"] + rows.map(\.text))
        #expect(passages.status == 0, "\(passages.stderr)")
        let queries = try Self.corpusd(["embed", "--model", folder, "--json", "--query", "--query-prompt", reference.query_prompt] + rows.map(\.text))
        #expect(queries.status == 0, "\(queries.stderr)")
        for (i, row) in rows.enumerated() {
            #expect(RandomModels.cosine(Self.vectors(passages)[i], row.vector) >= 0.99999, "passage \(i)")
            #expect(RandomModels.cosine(Self.vectors(queries)[i], row.query_vector) >= 0.99999, "query \(i)")
        }
    }

    /// A model stored in f16 holds about its f32 size once loaded, also at its peak: each tensor's
    /// mapped pages are let go as it is widened, and the mapping once all are.
    @Test(.enabled(if: RandomModels.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "\(RandomModels.absentMessage), or no /usr/bin/time"))
    func aHalfFloatModelHoldsAboutItsF32Size() throws {
        let folder = try RandomModels.folder(.arcticEmbedM, .f16)
        let f16Bytes = try FileManager.default.attributesOfItem(atPath: "\(folder)/model.safetensors")[.size] as! Int
        let r = try ProcessRunner.run("/usr/bin/time", ["-f", "maxrss %M", BuiltProducts.corpusd, "embed", "--model", folder, "--json", "a tide"],
                                      environment: ["PATH": "/usr/bin:/bin"], timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss ") })
        let peak = Int(line.dropFirst("maxrss ".count))! * 1024
        // f32 weights are twice the f16 file; the process itself needs well under 120 MB more.
        // Holding the f16 pages beside the f32 copy would add the f16 file's size on top.
        #expect(peak < 2 * f16Bytes + 120 << 20, "peak resident \(peak >> 20) MB for \(f16Bytes >> 20) MB of f16 weights")
    }

    static let refusals: [(String, String, String, String)] = [
        ("config.json", #"{"model_type": "bert", "hidden_act": "relu", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 5}"#,
         "config.json says hidden_act \"relu\", which this encoder cannot honour (it supports \"gelu\")", "model-folder"),
        ("1_Pooling/config.json", #"{"pooling_mode_max_tokens": true}"#,
         "1_Pooling/config.json says pooling_mode pooling_mode_max_tokens, which this encoder cannot honour (it supports exactly one of cls and mean)", "model-folder"),
    ]

    @Test(arguments: refusals.indices)
    func aSettingTheEncoderCannotHonourIsRefusedWithOneLine(_ index: Int) throws {
        let (file, text, message, code) = Self.refusals[index]
        let dir = TempDirectory("embed-refusal")
        try dir.write("m/config.json", #"{"model_type": "bert", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 5}"#)
        try dir.write("m/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n")
        try dir.write("m/model.safetensors", Data([2, 0, 0, 0, 0, 0, 0, 0]) + Data("{}".utf8))
        try dir.write("m/modules.json", #"[{"path": "", "type": "sentence_transformers.models.Transformer"}, {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]"#)
        try dir.write("m/1_Pooling/config.json", #"{"pooling_mode_cls_token": true}"#)
        try dir.write("m/\(file)", text)
        let before = DirectorySnapshot(dir.path)
        let human = try Self.corpusd(["embed", "--model", dir.url("m"), "the"])
        #expect(human.status == 2, "\(human.stderr)")
        let lines = human.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("error: \(dir.url("m")) is not a model folder of a BERT sentence encoder: \(message) (") == true, "\(human.stderr)")
        let json = try Self.corpusd(["embed", "--model", dir.url("m"), "--json", "the"])
        let error = ((try? JSONSerialization.jsonObject(with: json.stdoutData)) as? [String: Any])?["error"] as? [String: Any]
        #expect(json.status == 2 && error?["code"] as? String == code, "\(json.stdout)")
        #expect(DirectorySnapshot(dir.path) == before)
    }
}
