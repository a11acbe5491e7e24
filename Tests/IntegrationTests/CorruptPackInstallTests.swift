import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// security-cases.md "SQLite packs: corrupt pages → refused at install (integrity check), not at
/// query time", through the pack check the installer runs (`InstalledCorpus.checkExtracted`, CorpusEngine):
/// the signed hashes are right, the pages are not.
@Suite struct CorruptPackInstallTests {
    @Test func theShippedBinaryRefusesAPackWithCorruptPages() async throws {
        let tree = try StaticTreeFixture()
        let work = TempDirectory("corrupt-pack")
        let pack = PackFixture(id: "tides", texts: ["notes/tides.md": ["tidewater ebbing", "a second passage about tidewater"]])
        let bundle = try tree.signedBundle(pack, work: work, tamperPack: corruptPackPages)
        try tree.publish(version: 2, corpora: [try tree.catalogEntry(for: bundle)])
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}"])
        defer { server.stop() }
        let client = PublishedTreeClient()
        try client.addRemote(server.url, trust: tree.root + "/keys/root.pub")

        let before = client.snapshot
        let (r, object) = try client.json(["install", "tides"])
        #expect(r.status == 3, "\(r.stdout) \(r.stderr)")
        let result = (object?["results"] as? [[String: Any]])?.first
        #expect(result?["status"] as? String == "failed")
        let error = result?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "unsafe-pack", "\(String(describing: error))")
        #expect((error?["message"] as? String)?.contains("integrity check") == true, "\(String(describing: error))")
        #expect(client.snapshot == before, "home changed:\n\(before)\n---\n\(client.snapshot)")
    }
}
