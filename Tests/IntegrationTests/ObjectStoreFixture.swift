import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// A published tree and a real SeaweedFS it is uploaded to: the root and entitlement keys, the
/// catalog folder, `corpusd publish … --to` with the store's credentials in the environment only.
final class ObjectStoreFixture: @unchecked Sendable {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let bucket = "corpora"
    let store: SeaweedCluster
    let work = TempDirectory("hosted")
    var tree: String { work.url("public") }
    var catalogDir: String { work.url("catalog") }
    var rootKey: String { work.url("keys/root.key") }
    var rootPub: String { work.url("keys/root.pub") }
    var entitlementKey: String { work.url("keys/entitlement.key") }
    var entitlementPub: String { work.url("keys/entitlement.pub") }
    /// The public tree as anonymous readers reach it, path-style.
    var publicURL: String { "\(store.endpoint)/\(Self.bucket)/tree" }

    init(_ layout: SeaweedCluster.Layout = .single) throws {
        store = try SeaweedCluster(layout, anonymousRead: ["\(Self.bucket)/tree"])
        try store.createBucket(Self.bucket)
        chmod(work.path, 0o755)
        for name in ["root", "entitlement"] { try corpusdMust(["keygen", "--out", work.url("keys"), "--name", name]) }
    }

    /// The environment corpusd runs with: the caller's, the store's credentials, and the object
    /// store's own retry waits (0.5 s doubling, 4 attempts): a loaded SeaweedFS answers a PUT with
    /// 500 InternalError for a while (seen in a suite run), and retries scaled to 0.01 gave up
    /// within 35 ms where a real publish would have waited it out.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "CORPUS_TOKEN"] { env[name] = nil }
        env.merge(store.credentialEnvironment) { $1 }
        env["CORPUS_RETRY_SCALE"] = nil
        return env
    }

    func corpusd(_ args: [String], environment: [String: String]? = nil, timeout: TimeInterval = 300) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, args, environment: environment ?? self.environment, timeout: timeout)
    }

    @discardableResult
    func corpusdMust(_ args: [String]) throws -> ProcessResult {
        let r = try corpusd(args)
        guard r.status == 0 else { throw IntegrationError("corpusd \(args.prefix(2).joined(separator: " ")) exited \(r.status): \(r.stderr)") }
        return r
    }

    /// The options that upload to this store (`--endpoint` may point at a proxy in front of it).
    func uploadOptions(endpoint: String? = nil, prefix: String = "tree") -> [String] {
        ["--to", "s3://\(Self.bucket)/\(prefix)", "--private", "s3://\(Self.bucket)/private-\(prefix)", "--endpoint", endpoint ?? store.endpoint]
    }

    /// Writes `catalog.json` with `corpora` (JSON objects; `source`/`bundle` relative to the catalog folder).
    func writeCatalog(id: String = "hosted", _ corpora: [[String: Any]], embedders: [[String: Any]]? = nil) throws {
        var catalog: [String: Any] = ["id": id, "title": "Hosted catalog", "corpora": corpora]
        if let embedders { catalog["embedders"] = embedders }
        try work.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: catalog, options: [.sortedKeys]))
    }

    func publish(_ extra: [String] = []) throws -> ProcessResult {
        try corpusd(["publish", catalogDir, "--out", tree, "--key", rootKey] + extra)
    }

    func token(tier: String) throws -> String {
        let r = try corpusdMust(["token", "issue", "--key", entitlementKey, "--sub", "tester", "--tier", tier, "--catalog", tree, "--expires", "1h"])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A `.corpus.zip` of about `mebibytes` MiB signed by the root key, under the catalog folder.
    func noiseBundle(id: String, version: String = "1", mebibytes: Int, word: String) throws -> String {
        let key = try SecretKey(contentsOf: rootKey)
        let made = try makeNoiseBundle(id: id, version: version, mebibytes: mebibytes, word: word, key: key, work: work)
        let dest = "prebuilt/\(id)-\(version).corpus.zip"
        try FileManager.default.createDirectory(atPath: work.url("catalog/prebuilt"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: made.path, toPath: work.url("catalog/\(dest)"))
        return dest
    }

    /// The catalog's bundle path of a corpus, from the tree's newest catalog.
    func bundlePath(_ id: String) throws -> String {
        let pointer = try JSONDecoder().decode(CatalogPointer.self, from: Data(contentsOf: URL(fileURLWithPath: "\(tree)/catalog.json")))
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.catalogPath(version: pointer.version))")))
        return try #require(catalog.corpora.first { $0.id == id }).bundle.path
    }
}

/// The sample catalog of the repository (`catalog/`), its sources named absolutely, built with the
/// model-free embedder: the model folder is named where nothing is, so the publish falls back.
func sampleCatalogCorpora() throws -> [[String: Any]] {
    let root = ObjectStoreFixture.packageRoot
    let data = try Data(contentsOf: URL(fileURLWithPath: "\(root)/catalog/catalog.json"))
    let sample = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require(sample["corpora"] as? [[String: Any]]).map { entry in
        var e = entry
        if let source = e["source"] as? String { e["source"] = URL(fileURLWithPath: "\(root)/catalog/\(source)").standardized.path }
        e["embedder"] = nil
        return e
    }
}
