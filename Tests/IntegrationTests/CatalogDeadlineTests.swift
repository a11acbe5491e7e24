import Testing
import Foundation
import CorpusTestSupport

/// `corpus catalog` on a stalled server waited 3 attempts × the 30 s stall window before falling
/// back to the catalog it had accepted. A catalog refresh now has a total deadline
/// (`CORPUS_CATALOG_DEADLINE`, default 20 s); past it the accepted catalog is shown with a warning.
@Suite struct CatalogDeadlineTests {
    @Test func aStalledServerFallsBackToTheAcceptedCatalogWithinTheDeadline() async throws {
        let tree = try PublishedCorpusTree(corpora: [KillFixture.base])
        let server = try tree.serve(entitlements: false)
        defer { server.stop() }
        let client = PublishedTreeClient()
        try client.addRemote(server.url, trust: tree.rootPub)
        #expect(try client.run(["catalog"]).status == 0)

        // The same tree behind a server that sends headers and then nothing, ever.
        let stalled = try MisbehavingServer(root: tree.publicDir) { _ in .stallAfter(bytes: 0) }
        defer { stalled.stop() }
        try client.addRemote(stalled.url, trust: tree.rootPub)
        // Without the deadline this run takes 3 × 30 s and is killed at 60 s (exit 124).
        let r = try client.run(["catalog"], env: ["CORPUS_CATALOG_DEADLINE": "2"], timeout: 60)
        #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        #expect(r.stdout.contains("base 1"), "\(r.stdout)")
        #expect(r.stderr.contains("warning: main: unavailable after 1 attempt: no complete answer within the 2 s catalog refresh deadline; working from cached data: catalog main version 1"),
                "\(r.stderr)")
    }
}

extension MisbehavingServer {
    var url: String { baseURL }
}
