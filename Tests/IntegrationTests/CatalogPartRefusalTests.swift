import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// A tree with catalog parts (docs/format.md "Catalog parts"), published by the real `corpusd
/// publish` and served by `corpusd serve`: the client reads the top document and the path to
/// its entries only, and refuses every part the signed top document does not vouch for, with
/// exit 3 and the home folder unchanged.
@Suite struct CatalogPartRefusalTests {
    static func spec(_ id: String, _ version: String) -> IntegrationPublisher.CorpusSpec {
        .init(id: id, version: version, title: "Harbor \(id)", documents: [
            "notes.md": "# Notes \(version)\n\nThe harbor master of \(id) writes version \(version) of the notes on the tide tables.\n",
        ])
    }

    /// Publishes harbor-a 1 and harbor-b 1, installs harbor-a, then publishes harbor-a 2.
    struct Scenario {
        let publisher = IntegrationPublisher()
        let key: IntegrationPublisher.KeyPair
        let server: ServerProcess
        let client = IntegrationClient()

        init() throws {
            key = try publisher.keygen("root")
            try publisher.writeCatalog([CatalogPartRefusalTests.spec("harbor-a", "1"), CatalogPartRefusalTests.spec("harbor-b", "1")])
            try publisher.mustPublish(key: key.secret)
            server = try publisher.serve()
            try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
            try client.must(["install", "harbor-a"])
            try publisher.writeCatalog([CatalogPartRefusalTests.spec("harbor-a", "2"), CatalogPartRefusalTests.spec("harbor-b", "1")])
            try publisher.mustPublish(key: key.secret)
        }

        /// The top document of catalog `version` as the tree holds it.
        func top(_ version: Int) throws -> Catalog {
            try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/\(TreeLayout.topPath(version: version))")))
        }

        /// The parts on the path to `id`'s entry in catalog `version`, root first.
        func path(to id: String, version: Int) throws -> [PartRef] {
            let parts = try #require(try top(version).parts)
            return try CatalogPartWalk.entries(of: parts, ids: [id]) { FileManager.default.contents(atPath: "\(publisher.publicDir)/\($0.path)") }
                .read.map(\.ref)
        }

        func replace(_ ref: PartRef, with bytes: Data) throws {
            try bytes.write(to: URL(fileURLWithPath: "\(publisher.publicDir)/\(ref.path)"))
        }

        /// `corpus sync --json` must be refused with exit 3 and `code`, the home unchanged.
        func expectRefusedSync(code: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let before = client.snapshot
            let sync = try client.json(["sync"])
            #expect(sync.status == 3, "\(sync.result.stdout) \(sync.result.stderr)", sourceLocation: sourceLocation)
            #expect((sync.object["error"] as? [String: Any])?["code"] as? String == code, "\(sync.result.stdout)", sourceLocation: sourceLocation)
            #expect(client.snapshot == before, "the refusal changed the home folder", sourceLocation: sourceLocation)
        }
    }

    @Test func aRefreshReadsTheTopDocumentAndOnlyThePathToTheInstalledEntry() async throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let before = s.server.accessLog.count
        let sync = try s.client.json(["sync"])
        #expect(sync.status == 0, "\(sync.result.stderr)")
        #expect(sync.object["changed"] as? Int == 1, "\(sync.result.stdout)")
        let depth = try #require(try s.top(2).parts).depth
        // The access log is written in batches: wait for the bundle's line, the last request.
        _ = try await Polling.until(seconds: 5) { s.server.accessLog.dropFirst(before).contains { $0.contains("\"GET /bundles/") } }
        let requests = s.server.accessLog.dropFirst(before)
        // The path to harbor-a: the root changed, and so did harbor-a's leaf.
        #expect(requests.filter { $0.contains("\"GET /parts/") }.count == depth + 1, "\(requests)")
        #expect(!requests.contains { $0.contains("\"GET /catalogs/2.json\"") }, "the flat catalog was fetched: \(requests)")
        #expect(requests.contains { $0.contains("\"GET /catalogs/2.top.json\"") }, "\(requests)")
        // Nothing new: one conditional request, answered 304.
        let quiet = s.server.accessLog.count
        #expect(try s.client.json(["sync"]).status == 0)
        _ = try await Polling.until(seconds: 5) { s.server.accessLog.count > quiet }
        try await Task.sleep(for: .milliseconds(300))
        let last = Array(s.server.accessLog.dropFirst(quiet))
        #expect(last.count == 1 && last[0].contains("\"GET /timestamp.json\" 304"), "\(last)")
    }

    @Test func aPartWhoseBytesDifferFromItsHashIsRefused() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let root = try s.path(to: "harbor-a", version: 2)[0]
        var bytes = try #require(FileManager.default.contents(atPath: "\(s.publisher.publicDir)/\(root.path)"))
        bytes[bytes.count - 9] ^= 0x20
        try s.replace(root, with: bytes)
        try s.expectRefusedSync(code: "integrity")
    }

    /// A well-formed leaf an attacker wrote (harbor-a at a version and bundle of its choosing),
    /// served under the genuine leaf's name.
    @Test func aForgedPartIsRefused() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let path = try s.path(to: "harbor-a", version: 2)
        let leaf = try #require(path.last)
        let genuine = try CatalogPartWalk.entries(of: try #require(try s.top(2).parts), ids: ["harbor-a"]) {
            FileManager.default.contents(atPath: "\(s.publisher.publicDir)/\($0.path)")
        }.entries[0]
        var forged = genuine
        forged.version = CorpusVersion("9")!
        forged.title = "forged"
        try s.replace(leaf, with: try CatalogPart.leaf(prefix: String(CatalogPart.key(of: "harbor-a").prefix(path.count - 1)), entries: [forged]).stored())
        try s.expectRefusedSync(code: "integrity")
    }

    /// Mix and match: version 2's top document with version 1's leaf for harbor-a in place of its own.
    @Test func aPartOfAnotherCatalogVersionIsRefused() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let old = try #require(try s.path(to: "harbor-a", version: 1).last)
        let new = try #require(try s.path(to: "harbor-a", version: 2).last)
        #expect(old != new)
        try s.replace(new, with: try #require(FileManager.default.contents(atPath: "\(s.publisher.publicDir)/\(old.path)")))
        try s.expectRefusedSync(code: "integrity")
    }

    /// A top document signed with the real catalog key (stolen, say) whose parts hold harbor-a at
    /// version 1 after the client accepted version 2: the entry's own rollback is refused (TAP 16).
    @Test func aPartRolledBackToAnOlderEntryIsRefused() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        try s.client.must(["sync"])
        let key = try SecretKey(contentsOf: s.key.secret)
        let tree = s.publisher.publicDir
        var old = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.catalogPath(version: 1))")))
        old.version = 3
        let flatBytes = try old.canonicalBytes()
        try flatBytes.write(to: URL(fileURLWithPath: "\(tree)/\(TreeLayout.catalogPath(version: 3))"))
        try Data(try key.sign(flatBytes, trustedComment: old.trustedComment).fileText.utf8)
            .write(to: URL(fileURLWithPath: "\(tree)/\(TreeLayout.catalogPath(version: 3)).minisig"))
        let built = try CatalogPartition.build(old.corpora)
        for (ref, bytes) in built.stored { try bytes.write(to: URL(fileURLWithPath: "\(tree)/\(ref.path)")) }
        let top = old.topDocument(parts: built.parts)
        let topBytes = try top.canonicalBytes()
        try topBytes.write(to: URL(fileURLWithPath: "\(tree)/\(TreeLayout.topPath(version: 3))"))
        try Data(try key.sign(topBytes, trustedComment: top.trustedComment).fileText.utf8)
            .write(to: URL(fileURLWithPath: "\(tree)/\(TreeLayout.topPath(version: 3)).minisig"))
        let previous = try TimestampDocument.decode(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.timestamp)")))
        let stamp = TimestampDocument(version: previous.version + 1, issued: Date(), expires: Date().addingTimeInterval(3600),
                                      catalog: .init(id: old.id, version: 3, path: TreeLayout.catalogPath(version: 3),
                                                     digest: SHA256.digest(flatBytes), size: Int64(flatBytes.count)),
                                      top: .init(path: TreeLayout.topPath(version: 3), digest: SHA256.digest(topBytes), size: Int64(topBytes.count)))
        let stampBytes = try CanonicalJSON.encode(stamp)
        try Data(try key.sign(stampBytes, trustedComment: stamp.trustedComment).fileText.utf8)
            .write(to: URL(fileURLWithPath: "\(tree)/\(TreeLayout.timestamp).minisig"))
        try stampBytes.write(to: URL(fileURLWithPath: "\(tree)/\(TreeLayout.timestamp)"))
        try s.expectRefusedSync(code: "rollback")
    }
}
