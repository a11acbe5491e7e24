import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// The paying user's flow through the real CLI against a real `corpusd serve --entitlement-pub`:
/// locked without a token, refused with a forged one, installed with a good one up to its import
/// limit, refused past it before any download, bundled corpora never counted.
@Suite struct ClientEntitlementTests {
    static let corpora: [PublishedCorpusTree.Corpus] = [
        .init(id: "base", bundled: true, documents: PublishedCorpusTree.documents("starter lighthouse", seed: 1)),
        .init(id: "tides", documents: PublishedCorpusTree.documents("tidewater ebbing", seed: 2)),
        .init(id: "atlas", access: "entitled", tier: "pro", documents: PublishedCorpusTree.documents("meridian atlas", seed: 3)),
        .init(id: "orbits", access: "entitled", tier: "pro", documents: PublishedCorpusTree.documents("perihelion orbits", seed: 4)),
    ]

    /// Bundle paths by corpus id, from the published catalog.
    static func bundlePaths(_ tree: PublishedCorpusTree) throws -> [String: String] {
        let catalog = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/catalogs/1.json")))
        return Dictionary(uniqueKeysWithValues: catalog.corpora.map { ($0.id, $0.bundle.path) })
    }

    static func rows(_ object: [String: Any]?) -> [String: [String: Any]] {
        let list = object?["corpora"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "?", $0) })
    }

    static func firstError(_ object: [String: Any]?) -> [String: Any]? {
        (object?["results"] as? [[String: Any]])?.first?["error"] as? [String: Any]
    }

    @Test func lockedThenForgedThenEntitledUpToTheImportLimit() async throws {
        let tree = try PublishedCorpusTree(catalogID: "paid-catalog", corpora: Self.corpora)
        let server = try tree.serve()
        defer { server.stop() }
        let paths = try Self.bundlePaths(tree)
        let client = PublishedTreeClient()
        try client.addRemote(server.url, trust: tree.rootPub)
        #expect(try client.run(["install", "tides"]).status == 0)

        // No token: entitled corpora show locked; installing one is refused before any request.
        let catalog = try client.json(["catalog"])
        #expect(catalog.result.status == 0)
        let rows = Self.rows(catalog.object)
        #expect(rows["atlas"]?["locked"] as? Bool == true && rows["orbits"]?["locked"] as? Bool == true)
        #expect(rows["tides"]?["locked"] as? Bool == false && rows["tides"]?["installed"] as? Bool == true)
        #expect(rows["base"]?["locked"] as? Bool == false)
        var before = client.snapshot
        let none = try client.json(["install", "atlas"])
        #expect(none.result.status == 4)
        #expect(Self.firstError(none.object)?["code"] as? String == "entitlement")
        #expect(client.snapshot == before)
        #expect(!server.stderr.contains(paths["atlas"]!), "no token, no request")

        // A token signed by a key the server does not pin: the server says 401, the client exits 4.
        let forged = try tree.token(tier: "pro", importLimit: 5, key: tree.strangerKey)
        let refused = try client.json(["install", "atlas"], env: ["CORPUS_TOKEN": forged])
        #expect(refused.result.status == 4)
        #expect(Self.firstError(refused.object)?["code"] as? String == "entitlement")
        #expect(client.snapshot == before)
        #expect(!refused.result.stdout.contains(forged) && !refused.result.stderr.contains(forged), "the token is never printed")

        // The right token, limit 2: atlas installs (tides + atlas = 2).
        let token = try tree.token(tier: "pro", importLimit: 2)
        client.environment["CORPUS_TOKEN"] = token
        let unlocked = Self.rows(try client.json(["catalog"]).object)
        #expect(unlocked["atlas"]?["locked"] as? Bool == false)
        let atlas = try client.json(["install", "atlas"])
        #expect(atlas.result.status == 0, "\(atlas.result.stderr)")
        #expect(try client.installed() == ["atlas@1", "tides@1"])

        // The limit is reached: refused before the download, with the count in the message.
        before = client.snapshot
        let over = try client.json(["install", "orbits"])
        #expect(over.result.status == 4)
        let error = Self.firstError(over.object)
        #expect(error?["code"] as? String == "import-limit")
        #expect((error?["message"] as? String)?.contains("2 of 2") == true, "\(String(describing: error))")
        #expect(client.snapshot == before)
        #expect(server.stderr.contains(paths["atlas"]!) && !server.stderr.contains(paths["orbits"]!),
                "the server saw atlas's bundle requested, never orbits's")

        // A bundled starter corpus does not count against the limit.
        #expect(try client.run(["install", "base"]).status == 0)
        let status = try client.json(["status"])
        #expect(status.object?["imports_used"] as? Int == 2 && status.object?["import_limit"] as? Int == 2)
        #expect(try client.installed() == ["atlas@1", "base@1", "tides@1"])
    }
}
