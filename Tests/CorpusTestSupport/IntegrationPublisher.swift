import Foundation

/// The publisher's side of an integration test, driven only through the built `corpusd`: a keys
/// folder, a catalog folder of Markdown sources written by the test, a published tree, and
/// `corpusd serve` processes over that tree on loopback.
public final class IntegrationPublisher: @unchecked Sendable {
    public let work: TempDirectory
    public let catalogID: String
    public var catalogDir: String { work.url("catalog") }
    public var publicDir: String { work.url("public") }
    public var keysDir: String { work.url("keys") }

    /// One corpus of the catalog folder: its id, version and documents (path → Markdown text).
    public struct CorpusSpec: Sendable {
        public var id: String
        public var version: String
        public var title: String
        public var documents: [String: String]
        public init(id: String, version: String, title: String? = nil, documents: [String: String]) {
            self.id = id
            self.version = version
            self.title = title ?? id
            self.documents = documents
        }
    }

    public init(catalogID: String = "harbor") {
        work = TempDirectory("integration-publisher")
        self.catalogID = catalogID
    }

    /// A key pair from `corpusd keygen`: the paths of `NAME.key` and `NAME.pub`.
    public struct KeyPair: Sendable {
        public let secret: String
        public let pub: String

        public init(secret: String, pub: String) {
            self.secret = secret
            self.pub = pub
        }
    }

    public func keygen(_ name: String) throws -> KeyPair {
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", keysDir, "--name", name], timeout: 60)
        guard r.status == 0 else { throw IntegrationError("corpusd keygen failed (\(r.status)): \(r.stderr)") }
        return KeyPair(secret: "\(keysDir)/\(name).key", pub: "\(keysDir)/\(name).pub")
    }

    /// Rewrites the catalog folder: `catalog.json` and one source folder per corpus, replacing
    /// whatever sources were there (so a removed document really disappears).
    public func writeCatalog(_ corpora: [CorpusSpec]) throws {
        let fm = FileManager.default
        try? fm.removeItem(atPath: catalogDir)
        var entries: [[String: Any]] = []
        for c in corpora {
            for (path, text) in c.documents { try work.write("catalog/sources/\(c.id)/\(path)", text) }
            entries.append(["id": c.id, "version": c.version, "title": c.title, "description": "\(c.title), for integration tests",
                            "language": "en", "license": "CC0-1.0", "source": "sources/\(c.id)", "access": "free"])
        }
        let doc: [String: Any] = ["id": catalogID, "title": "Integration catalog \(catalogID)", "corpora": entries]
        try work.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: doc, options: [.prettyPrinted, .sortedKeys]))
    }

    /// `corpusd publish CATALOG_DIR --out PUBLIC_DIR --key KEY [OPTIONS…]`; the result, whatever it was.
    @discardableResult
    public func publish(key: String, into tree: String? = nil, options: [String] = []) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, ["publish", catalogDir, "--out", tree ?? publicDir, "--key", key] + options, timeout: 120)
    }

    /// Publishes and throws unless it succeeded.
    public func mustPublish(key: String) throws {
        let r = try publish(key: key)
        guard r.status == 0 else { throw IntegrationError("corpusd publish failed (\(r.status)): \(r.stderr)") }
    }

    /// `corpusd rotate-key --out PUBLIC_DIR --key CURRENT --new-key NEW`.
    @discardableResult
    public func rotateKey(current: String, new: String) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, ["rotate-key", "--out", publicDir, "--key", current, "--new-key", new], timeout: 60)
    }

    /// A real `corpusd serve` over `tree` (default: the published tree) on a free loopback port,
    /// or on `port` when a test replaces one server by another at the same address.
    public func serve(tree: String? = nil, port: UInt16 = freeLoopbackPort()) throws -> ServerProcess {
        try ServerProcess(BuiltProducts.corpusd, ["serve", tree ?? publicDir, "--listen", "127.0.0.1:{PORT}"], port: port)
    }

    /// The newest catalog version in the published tree, as the pointer names it.
    public func pointerVersion(tree: String? = nil) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(tree ?? publicDir)/catalog.json"))
        guard let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any], let v = obj["version"] as? Int else {
            throw IntegrationError("catalog.json of \(tree ?? publicDir) has no version")
        }
        return v
    }
}

/// The access-log lines `corpusd serve` wrote to stderr (`127.0.0.1 "GET /path" 200 …`).
public extension ServerProcess {
    var accessLog: [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("127.0.0.1 \"") }
    }
}

/// A failed step of an integration scenario, with what the tool said.
public struct IntegrationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
