import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// security-cases.md, "a corpus turned entitled, then free again: the newest catalog decides".
/// The tree keeps older, still-valid catalogs so that clients reading one can finish; none of them
/// may keep a corpus gated once a newer catalog lists its bundle as free.
@Suite struct NewestCatalogDecidesTests {
    func setAccess(_ id: String, _ access: Access, tier: String?) -> (inout [CatalogEntry]) -> Void {
        { entries in
            for i in entries.indices where entries[i].id == id {
                entries[i].access = access
                entries[i].tier = tier
            }
        }
    }

    @Test func aBundleTurnedFreeIsServedWithoutATokenAlsoAfterARestart() throws {
        let f = try ServerFixture()
        let path = f.bundle("paid-atlas")
        #expect(try f.get(path).status == 401)
        try f.tree.republish(setAccess("paid-atlas", .free, tier: nil))
        // Catalog 1 (entitled) is still in the tree and unexpired; catalog 2 (free) is the newest.
        let r = try f.get(path)
        #expect(r.status == 200)
        #expect(r.body == f.tree.bundleBytes["paid-atlas"])
        #expect(r.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(try f.get("/_auth", headers: ["X-Original-URI": path]).status == 204)

        // A server started on the tree as it now is decides the same.
        var config = ServerConfiguration(root: f.tree.root, port: 0, entitlementKey: f.tree.entitlementKey.publicKey)
        config.threads = 1
        let restarted = try HTTPServer(config)
        defer { restarted.stop(grace: .seconds(2)) }
        #expect(try ServerTestClient.request(port: restarted.port, "GET", path).status == 200)
    }

    /// Each bundle's fate over three catalogs; `nil` means the catalog does not list it.
    static let histories: [(String, [Access?], Int)] = [
        ("entitled, then free", [.entitled, .free, .free], 200),
        ("entitled, then free, then dropped", [.entitled, .free, nil], 200),
        ("free, then entitled", [.free, .entitled, .entitled], 401),
        ("free, then entitled, then dropped", [.free, .entitled, nil], 401),
        ("entitled, dropped, free again", [.entitled, nil, .free], 200),
        ("free, dropped, entitled", [.free, nil, .entitled], 401),
        ("only in the oldest catalog, entitled", [.entitled, nil, nil], 401),
        ("only in the oldest catalog, free", [.free, nil, nil], 200),
        ("free throughout", [.free, .free, .free], 200),
        ("entitled throughout", [.entitled, .entitled, .entitled], 401),
    ]

    @Test(arguments: histories)
    func theNewestCatalogThatListsABundleDecides(_ name: String, _ history: [Access?], _ status: Int) throws {
        let f = try ServerFixture(specs: [.init("other", .free)])
        let entry = try f.tree.addBundle(.init("subject", .free, size: 7_000))
        // Catalog 1 was written by the fixture; rewrite it as version 1 with the first state.
        for (n, access) in history.enumerated() {
            let apply: (inout [CatalogEntry]) -> Void = { entries in
                entries.removeAll { $0.id == "subject" }
                if let access {
                    var e = entry
                    e.access = access
                    e.tier = access == .entitled ? "gold" : nil
                    entries.append(e)
                }
            }
            if n == 0 {
                var c = f.tree.catalog
                apply(&c.corpora)
                try f.tree.writeCatalog(c)
            } else {
                try f.tree.republish(apply)
            }
        }
        let path = "/" + entry.bundle.path
        #expect(try f.get(path).status == status, "\(name)")
        if status == 401 {
            #expect(try f.get(path, headers: f.bearer(try f.tree.token(tiers: ["gold"]))).status == 200, "\(name)")
        }
    }

    /// The same sequence through the real tools: `corpusd publish` twice (entitled, then free; the
    /// bundle bytes do not change, so both catalogs name the same file) and a real `corpusd serve`,
    /// restarted in between.
    @Test func aCorpusPublishedEntitledThenFreeIsServedFreeByCorpusdServe() throws {
        let docs = PublishedCorpusTree.documents("lighthouse keepers")
        let tree = try PublishedCorpusTree(corpora: [.init(id: "keepers", access: "entitled", tier: "gold", documents: docs)])
        let entitledPath = try Self.bundlePath(tree, "keepers")
        var server = try tree.serve()
        #expect(try ServerTestClient.request(port: server.port, "GET", "/" + entitledPath).status == 401)
        server.stop()

        try tree.publish([.init(id: "keepers", access: "free", documents: docs)])
        #expect(try Self.bundlePath(tree, "keepers") == entitledPath, "the bundle was rebuilt; the test needs the same file in both catalogs")
        #expect(FileManager.default.fileExists(atPath: tree.publicDir + "/catalogs/1.json"))
        server = try tree.serve()
        defer { server.stop() }
        let r = try ServerTestClient.request(port: server.port, "GET", "/" + entitledPath)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.body == FileManager.default.contents(atPath: tree.publicDir + "/" + entitledPath))
    }

    static func bundlePath(_ tree: PublishedCorpusTree, _ id: String) throws -> String {
        let pointer = try JSONDecoder().decode(CatalogPointer.self, from: Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/catalog.json")))
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/" + pointer.path)))
        return try #require(catalog.corpora.first { $0.id == id }).bundle.path
    }
}
