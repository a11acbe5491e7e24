import Foundation
import CorpusFormat

/// A real published tree made by the real tools: `corpusd keygen` for the root and entitlement
/// keys, source folders of Markdown written from the corpora given, a catalog folder, and
/// `corpusd publish` building real signed bundles into `public/`. Publishing again with other
/// corpora adds the next catalog version to the same tree, as an operator would.
public final class PublishedCorpusTree: @unchecked Sendable {
    // @unchecked: a tree is built and republished by one test at a time.

    /// One corpus to publish: its documents are Markdown files (relative path → text).
    public struct Corpus: Sendable {
        public var id: String
        public var version: String
        public var access: String
        public var tier: String?
        public var bundled: Bool
        public var documents: [String: String]
        /// The embedder to build with (`catalog.json`'s `embedder`); nil for the default.
        public var embedder: String?
        /// `catalog.json`'s `index` (`install`: the pack ships without its full-text index); nil for the default.
        public var index: String?

        public init(id: String, version: String = "1", access: String = "free", tier: String? = nil, bundled: Bool = false,
                    documents: [String: String], embedder: String? = nil, index: String? = nil) {
            self.index = index
            self.id = id
            self.version = version
            self.access = access
            self.tier = tier
            self.bundled = bundled
            self.documents = documents
            self.embedder = embedder
        }
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let work = TempDirectory("published")
    public let catalogID: String
    public var publicDir: String { work.url("public") }
    public var rootKey: String { work.url("keys/root.key") }
    public var rootPub: String { work.url("keys/root.pub") }
    public var entitlementKey: String { work.url("keys/entitlement.key") }
    public var entitlementPub: String { work.url("keys/entitlement.pub") }
    /// A key pair no server pins, for forged tokens.
    public var strangerKey: String { work.url("keys/stranger.key") }
    public private(set) var publishCount = 0

    /// Model folders by embedder id, listed as the catalog's `embedders`.
    public let models: [String: String]
    /// Arguments every `corpusd publish` of this tree gets besides the usual ones (`--key-store DIR --gate-url URL`).
    public var publishArguments: [String]

    public init(catalogID: String = "test-catalog", models: [String: String] = [:], publishArguments: [String] = [], corpora: [Corpus]) throws {
        self.catalogID = catalogID
        self.models = models
        self.publishArguments = publishArguments
        for name in ["root", "entitlement", "stranger"] {
            try Self.corpusd(["keygen", "--out", work.url("keys"), "--name", name])
        }
        try publish(corpora)
    }

    /// Writes the sources and catalog folder for `corpora` and runs `corpusd publish` into `public/`;
    /// `deltas` is its `--deltas K` (nil: corpusd's default).
    public func publish(_ corpora: [Corpus], deltas: Int? = nil) throws {
        publishCount += 1
        var entries: [[String: Any]] = []
        for c in corpora {
            let source = "sources/\(c.id)-\(c.version)"
            let folder = work.url("catalog/\(source)")
            try? FileManager.default.removeItem(atPath: folder)
            for (path, text) in c.documents { try work.write("catalog/\(source)/\(path)", text) }
            var e: [String: Any] = ["id": c.id, "version": c.version, "title": "Corpus \(c.id)", "description": "test corpus \(c.id)",
                                    "source": source, "access": c.access, "bundled": c.bundled, "license": "CC0-1.0"]
            if let tier = c.tier { e["tier"] = tier }
            if let embedder = c.embedder { e["embedder"] = embedder }
            if let index = c.index { e["index"] = index }
            entries.append(e)
        }
        var catalog: [String: Any] = ["id": catalogID, "title": "Test catalog", "corpora": entries]
        if !models.isEmpty { catalog["embedders"] = models.sorted { $0.key < $1.key }.map { ["id": $0.key, "source": $0.value] } }
        try work.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: catalog, options: [.sortedKeys]))
        try Self.corpusd(["publish", work.url("catalog"), "--out", publicDir, "--key", rootKey, "--quiet"] + publishArguments + (deltas.map { ["--deltas", String($0)] } ?? []))
    }

    /// A frozen copy of the tree as published so far, to serve an older catalog beside a newer one.
    public func snapshotCopy() throws -> TempDirectory {
        let copy = TempDirectory("published-copy")
        let r = try ProcessRunner.run("/bin/cp", ["-a", publicDir + "/.", copy.path])
        guard r.status == 0 else { throw FixtureError(description: "cp: \(r.stderr)") }
        return copy
    }

    /// `corpusd serve` on a free loopback port for `root` (default: this tree), pinning the entitlement key.
    public func serve(root: String? = nil, entitlements: Bool = true) throws -> ServerProcess {
        var args = ["serve", root ?? publicDir, "--listen", "127.0.0.1:{PORT}"]
        if entitlements { args += ["--entitlement-pub", entitlementPub] }
        return try ServerProcess(BuiltProducts.corpusd, args)
    }

    /// `corpusd token issue` for this catalog (signed by the entitlement key unless `key` says otherwise).
    public func token(tier: String? = nil, corpora: [String] = [], importLimit: Int? = nil, key: String? = nil,
                      audience: String? = nil) throws -> String {
        var args = ["token", "issue", "--key", key ?? entitlementKey, "--sub", "tester", "--aud", audience ?? catalogID, "--expires", "1h"]
        if let tier { args += ["--tier", tier] }
        if !corpora.isEmpty { args += ["--corpora", corpora.joined(separator: ",")] }
        if let importLimit { args += ["--import-limit", String(importLimit)] }
        let r = try ProcessRunner.run(BuiltProducts.corpusd, args)
        guard r.status == 0 else { throw FixtureError(description: "corpusd token issue: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The sizes a client meets installing `id` from catalog `version` (default: the newest
    /// published): the bundle's, from the signed catalog, and each member's once unpacked, from its
    /// signed manifest.
    public func sizes(of id: String, catalog version: Int? = nil) throws -> (bundle: Int64, members: [String: Int64]) {
        let path = publicDir + "/catalogs/\(version ?? publishCount).json"
        let catalog = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let entry = catalog.corpora.first(where: { $0.id == id }) else { throw FixtureError(description: "\(path) offers no \(id)") }
        let reader = try BundleReader(path: publicDir + "/" + entry.bundle.path)
        let manifest = try reader.manifest(trustedKeys: [try PublicKey(contentsOf: rootPub)]).manifest
        return (entry.bundle.size, manifest.members.mapValues(\.size))
    }

    /// The bundle files under `bundles/` of `root` (default: this tree).
    public func bundleFiles(root: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (root ?? publicDir) + "/bundles")) ?? []).sorted()
    }

    @discardableResult
    static func corpusd(_ args: [String]) throws -> ProcessResult {
        let r = try ProcessRunner.run(BuiltProducts.corpusd, args, timeout: 300)
        guard r.status == 0 else { throw FixtureError(description: "corpusd \(args.prefix(2).joined(separator: " ")) exited \(r.status): \(r.stderr)") }
        return r
    }

    /// Markdown documents whose passages all carry `words`, `count` files of about `paragraphs`
    /// paragraphs each, padded with deterministic filler so bundles have some size.
    public static func documents(_ words: String, count: Int = 2, paragraphs: Int = 3, seed: UInt64 = 1) -> [String: String] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        let filler = ["anchor", "bearing", "chart", "compass", "current", "depth", "estuary", "fathom", "gale", "headland",
                      "inlet", "jetty", "keel", "lee", "mooring", "nautical", "offing", "pilot", "quay", "reef", "shoal",
                      "sounding", "swell", "windward", "wake", "berth", "buoy", "channel", "draught", "helm"]
        var out: [String: String] = [:]
        for d in 0..<count {
            var text = "# Note \(d + 1)\n\n"
            for p in 0..<paragraphs {
                var sentence: [String] = ["Paragraph \(p) of note \(d + 1) is about \(words)."]
                for _ in 0..<40 {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    sentence.append(filler[Int(state >> 33) % filler.count] + String(Int(state >> 40) % 97))
                }
                text += sentence.joined(separator: " ") + "\n\n"
            }
            out["note-\(d + 1).md"] = text
        }
        return out
    }
}
