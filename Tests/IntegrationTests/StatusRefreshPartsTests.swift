import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpus status` refreshes a catalog of parts as `corpus sync` does (issue 31: the client's work
/// grows with what it installed, not with the catalog): the top document and the path to each
/// installed entry, never the rest of the trie.
@Suite struct StatusRefreshPartsTests {
    /// Enough corpora for a trie of depth 1 (more than four entries), so the installed entry's path
    /// is one leaf of several.
    static func specs(harborA version: String) -> [IntegrationPublisher.CorpusSpec] {
        (0..<6).map { n in
            let id = n == 0 ? "harbor-a" : "harbor-\(n)"
            let v = n == 0 ? version : "1"
            return .init(id: id, version: v, title: "Harbor \(id)", documents: [
                "notes.md": "# Notes \(v)\n\nThe harbor master of \(id) writes version \(v) of the notes on the tide tables.\n",
            ])
        }
    }

    @Test func statusReadsOnlyThePathToTheInstalledEntry() async throws {
        let publisher = IntegrationPublisher()
        let key = try publisher.keygen("root")
        try publisher.writeCatalog(Self.specs(harborA: "1"))
        try publisher.mustPublish(key: key.secret)
        let server = try publisher.serve()
        defer { server.stop() }
        let client = IntegrationClient()
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
        try client.must(["install", "harbor-a"])
        try publisher.writeCatalog(Self.specs(harborA: "2"))
        try publisher.mustPublish(key: key.secret)
        let top = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/\(TreeLayout.topPath(version: 2))")))
        let parts = try #require(top.parts)
        #expect(parts.depth >= 1, "the trie must have more than one leaf for this test")

        let before = server.accessLog.count
        let status = try client.json(["status"])
        #expect(status.status == 0, "\(status.result.stderr)")
        let updates = try #require(status.object["updates"] as? [[String: Any]])
        #expect(updates.count == 1 && updates.first?["available"] as? String == "2", "\(status.result.stdout)")
        _ = try await Polling.until(seconds: 5) { server.accessLog.dropFirst(before).contains { $0.contains("\"GET /catalogs/2.top.json\"") } }
        try await Task.sleep(for: .milliseconds(300))
        let requests = server.accessLog.dropFirst(before)
        let trie = try CatalogPartWalk.entries(of: parts, ids: ["harbor-a"]) { FileManager.default.contents(atPath: "\(publisher.publicDir)/\($0.path)") }
        let path = Set(trie.read.map { "\"GET /\($0.ref.path)\"" })
        let fetched = requests.filter { $0.contains("\"GET /parts/") }
        #expect(fetched.count == parts.depth + 1, "\(fetched)")
        #expect(fetched.allSatisfy { line in path.contains { line.contains($0) } }, "a part off the installed entry's path: \(fetched)")
    }
}
