import Testing
import Foundation
import CorpusTestSupport

/// One damaged installed corpus: searches answer from the others and name it with its repair;
/// `corpus install` notices the damage (it used to say "up to date") and reinstalls it.
@Suite struct DamagedInstallCLITests {
    @Test func searchSkipsTheDamagedCorpusAndInstallRepairsIt() async throws {
        let fixture = try InstalledPairFixture()
        let client = fixture.client
        let pack = fixture.versionFolder("tides") + "/pack.sqlite"
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: pack))
        try handle.write(contentsOf: Data(repeating: 0x58, count: 100))
        try handle.close()

        let text = try client.run(["search", "tidewater", "--lexical-only"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("[base 1:"), "\(text.stdout)")
        #expect(!text.stdout.contains("[tides 1:"), "\(text.stdout)")
        #expect(text.stderr.contains("note: skipped main/tides: "), "\(text.stderr)")
        #expect(text.stderr.contains("(repair it with: corpus install main/tides)"), "\(text.stderr)")

        let (r, object) = try client.json(["search", "tidewater", "--lexical-only"])
        #expect(r.status == 0)
        #expect(Set(((object?["hits"] as? [[String: Any]]) ?? []).compactMap { $0["corpus"] as? String }) == ["base"])
        let skipped = object?["skipped"] as? [[String: Any]]
        #expect(skipped?.count == 1 && skipped?.first?["corpus"] as? String == "main/tides", "\(r.stdout)")
        let error = skipped?.first?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "io", "\(String(describing: error))")
        #expect(error?["hint"] as? String == "repair it with: corpus install main/tides", "\(String(describing: error))")

        let (installed, result) = try client.json(["install", "tides"])
        #expect(installed.status == 0, "\(installed.stdout) \(installed.stderr)")
        let results = result?["results"] as? [[String: Any]]
        #expect(results?.map { "\($0["corpus"] ?? "?")=\($0["status"] ?? "?")" } == ["main/tides=repaired"], "\(installed.stdout)")
        #expect(result?["changed"] as? Int == 1)
        #expect(try client.run(["verify"]).status == 0)
        let hits = try client.search("tidewater") ?? []
        #expect(Set(hits.map(\.corpus)) == ["base@1", "tides@1"])
        // Repaired, it is up to date again.
        let again = try client.run(["install", "tides"])
        #expect(again.stdout.contains("main/tides 1 is up to date"), "\(again.stdout)")
    }
}
