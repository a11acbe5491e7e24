import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// What the importer tests do through the real binaries: a signing key from `corpusd keygen`,
/// `corpusd build SOURCE --from FORMAT … --json`, then `corpus import` of the bundle into a fresh
/// home and `corpus search` there.
final class ImportCLIRun: @unchecked Sendable {
    // @unchecked: one test owns it.
    let work = TempDirectory("import-cli")
    let client = PublishedTreeClient()
    var key: String { work.url("keys/root.key") }
    var pub: String { work.url("keys/root.pub") }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modelFolder = packageRoot.appendingPathComponent("models/all-MiniLM-L6-v2").path
    static var modelAvailable: Bool { FileManager.default.fileExists(atPath: "\(modelFolder)/model.safetensors") }

    init() throws {
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", work.url("keys"), "--name", "root"])
        guard r.status == 0 else { throw IntegrationError("keygen: \(r.stderr)") }
    }

    struct Built {
        let result: ProcessResult
        let object: [String: Any]
        let bundle: String
        var imported: [String: Any] { object["import"] as? [String: Any] ?? [:] }
        var embedder: [String: Any] { object["embedder"] as? [String: Any] ?? [:] }
    }

    /// `corpusd build SOURCE --from FORMAT --id ID --version 1 --key KEY --out out/ID-1.corpus.zip [extra] --json`.
    func build(_ source: String, from format: String, id: String, extra: [String] = []) throws -> Built {
        let bundle = work.url("out/\(id)-1.corpus.zip")
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", source, "--from", format, "--id", id, "--version", "1",
                                                              "--key", key, "--out", bundle, "--json"] + extra, timeout: 600)
        let object = (try? JSONSerialization.jsonObject(with: r.stdoutData)) as? [String: Any] ?? [:]
        return Built(result: r, object: object, bundle: bundle)
    }

    /// A build that must be refused: exit `status`, exactly the one line `error: MESSAGE (HINT)` on
    /// stderr and nothing on stdout, the `--json` form naming `code`, and nothing written: no
    /// bundle, and the work folder (the source, the keys, an output folder holding a file of its
    /// own) byte-identical after both runs.
    func expectRefusal(_ source: String, from format: String, status: Int32, code: String, message: String, hint: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bundle = work.url("out/bad-1.corpus.zip")
        _ = try work.write("out/keep.txt", "the publisher's own file")
        let before = DirectorySnapshot(work.path)
        let text = try ProcessRunner.run(BuiltProducts.corpusd, ["build", source, "--from", format, "--id", "bad", "--version", "1",
                                                                 "--key", key, "--out", bundle])
        #expect(text.status == status, "\(text.stderr)", sourceLocation: sourceLocation)
        #expect(text.stderr == "error: \(message) (\(hint))\n", sourceLocation: sourceLocation)
        #expect(text.stdout.isEmpty, sourceLocation: sourceLocation)
        let json = try build(source, from: format, id: "bad")
        let error = json.object["error"] as? [String: Any]
        #expect(json.result.status == status && error?["code"] as? String == code && error?["message"] as? String == message,
                "\(json.result.stdout)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: bundle), sourceLocation: sourceLocation)
        let after = DirectorySnapshot(work.path)
        #expect(after == before, "the refusal wrote something:\n\(before)\n---\n\(after)", sourceLocation: sourceLocation)
    }

    /// The bundle's manifest, verified completely against the signing key.
    func manifest(_ bundle: String) throws -> Manifest {
        try BundleReader(path: bundle).verifyAll(trustedKeys: [PublicKey(contentsOf: pub)])
    }

    /// `corpus import BUNDLE --trust PUB` into the client's home.
    func importBundle(_ bundle: String) throws -> ProcessResult {
        try client.run(["import", bundle, "--trust", pub], timeout: 600)
    }

    /// The hits of `corpus search QUERY --corpus local/ID --json`.
    func search(_ query: String, corpus id: String, extra: [String] = []) throws -> [[String: Any]] {
        let (r, object) = try client.json(["search", query, "--corpus", "local/\(id)"] + extra)
        guard r.status == 0 else { throw IntegrationError("search: \(r.stdout) \(r.stderr)") }
        return object?["hits"] as? [[String: Any]] ?? []
    }

    /// The installed pack of `local/ID` (version 1), for `SQLiteShell`.
    func installedPack(_ id: String) -> String { "\(client.home)/corpora/local/\(id)/versions/1/pack.sqlite" }
}
