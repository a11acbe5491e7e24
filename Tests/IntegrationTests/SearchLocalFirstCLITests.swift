import Foundation
import Testing
import CorpusTestSupport

/// `corpus search` searches locally whenever the layout holds a corpus (`corpora/*/*/current`),
/// as the engine does, without reading install records to decide (issue 17: decoding them cost
/// more than the search). A corpus placed without an install record (an app's bundled copy, a
/// fixture) is searched locally even with a remote configured, not sent to the remote.
@Suite struct SearchLocalFirstCLITests {
    @Test func aCorpusInTheLayoutIsSearchedLocallyEvenWithARemoteConfigured() throws {
        let client = PublishedTreeClient()
        let keys = TempDirectory("keys")
        let keygen = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", keys.path, "--name", "root"])
        try #require(keygen.status == 0, "\(keygen.stderr)")
        // Nothing listens on port 9: a search sent to this remote fails.
        try client.addRemote("http://127.0.0.1:9", trust: keys.url("root.pub"))
        _ = try PackFixture(id: "sea", remote: "main", texts: ["guide/harbour.md": ["Small boats shelter in the harbour."]])
            .install(home: client.home)
        let (r, object) = try client.json(["search", "harbour"])
        #expect(r.status == 0, "\(r.stderr)")
        let hits = (object?["hits"] as? [[String: Any]]) ?? []
        #expect(hits.count == 1 && hits.allSatisfy { $0["origin"] as? String == "local" && $0["corpus"] as? String == "sea" }, "\(r.stdout)")
    }
}
