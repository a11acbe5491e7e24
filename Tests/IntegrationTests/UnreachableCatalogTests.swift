import Testing
import Foundation
import CorpusTestSupport

/// With every source of a catalog unreachable, `corpus sync` printed "main/tides 1 is up to date /
/// nothing to do" and exited 0, and `install` of an installed corpus said the same: a fleet's
/// script believed it was current while it could not check. Now both say which catalog could not
/// be refreshed, when the one used was signed and last fetched, and exit 5.
@Suite struct UnreachableCatalogTests {
    final class Setup: @unchecked Sendable {
        let tree: PublishedCorpusTree
        let client = PublishedTreeClient()

        /// `tides` installed from a served tree, then the origin stopped.
        init() throws {
            tree = try PublishedCorpusTree(corpora: [.init(id: "tides", documents: PublishedCorpusTree.documents("tide harbour"))])
            let origin = try tree.serve()
            try client.addRemote(origin.url, trust: tree.rootPub)
            let r = try client.run(["install", "tides"])
            origin.stop()
            guard r.status == 0 else { throw IntegrationError("install: \(r.stderr)") }
        }
    }

    @Test(arguments: [["sync"], ["install", "tides"], ["sync", "--wanted", "WANTED"]])
    func anUnreachableCatalogIsReportedWithExit5(_ command: [String]) throws {
        let s = try Setup()
        let wanted = s.client.folder.url("wanted.json")
        try Data(#"["tides"]"#.utf8).write(to: URL(fileURLWithPath: wanted))
        let args = command.map { $0 == "WANTED" ? wanted : $0 }
        let before = s.client.snapshot

        let human = try s.client.run(args)
        #expect(human.status == 5, "exit \(human.status): \(human.stdout) \(human.stderr)")
        #expect(!human.stdout.contains("up to date") && !human.stdout.contains("nothing to do"), "\(human.stdout)")
        #expect(human.stdout.contains("main/tides 1 is installed; whether a newer version exists could not be checked"), "\(human.stdout)")
        #expect(human.stderr.contains("error: could not refresh catalog main: unavailable after"), "\(human.stderr)")
        #expect(human.stderr.contains("used catalog version 1 as accepted earlier, signed 20"), "\(human.stderr)")
        #expect(human.stderr.contains(", last fetched 20"), "\(human.stderr)")

        let (r, object) = try s.client.json(args)
        #expect(r.status == 5, "\(r.stdout) \(r.stderr)")
        let results = object?["results"] as? [[String: Any]]
        #expect(results?.first?["status"] as? String == "unchanged")
        let unrefreshed = try #require((object?["unrefreshed"] as? [[String: Any]])?.first, "\(r.stdout)")
        #expect(unrefreshed["remote"] as? String == "main")
        #expect(unrefreshed["catalog_version"] as? Int == 1)
        #expect((unrefreshed["signed"] as? String)?.hasSuffix("Z") == true)
        #expect((unrefreshed["fetched"] as? String)?.hasSuffix("Z") == true)
        #expect((unrefreshed["error"] as? [String: Any])?["code"] as? String == "network")
        #expect(r.stderr.contains("could not refresh catalog main"), "said on stderr in --json mode too: \(r.stderr)")

        #expect(s.client.snapshot == before, "nothing changed in the home")
    }

    /// Reachable again: the same commands are up to date with exit 0, and say nothing of it.
    @Test func aReachableCatalogIsUpToDateAgain() throws {
        let s = try Setup()
        let origin = try s.tree.serve()
        defer { origin.stop() }
        let config = s.client.home + "/config.json"
        let text = try String(contentsOfFile: config, encoding: .utf8)
        let old = try #require(text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression))
        try text.replacingCharacters(in: old, with: origin.url).write(toFile: config, atomically: true, encoding: .utf8)
        let r = try s.client.json(["sync"])
        #expect(r.result.status == 0, "\(r.result.stdout) \(r.result.stderr)")
        #expect(r.object?["unrefreshed"] == nil)
        #expect(!r.result.stderr.contains("could not refresh"))
    }
}
