import Testing
import Foundation
import CorpusTestSupport

/// A garbled file of the home folder used to be reported like a bad catalog ("tell its
/// publisher"). It is its own refusal now: exit 7, code `local-file`, naming the file and saying
/// what to do with it.
@Suite struct LocalFileDamageTests {
    struct Case: Sendable, CustomStringConvertible {
        let file: String
        let command: [String]
        let hint: String
        var description: String { file }
    }

    static let cases: [Case] = [
        Case(file: "config.json", command: ["catalog"],
             hint: "fix it, or remove it and add the catalogs again (corpus remote add NAME URL --trust KEY.pub)"),
        Case(file: "state/main/catalog.json", command: ["catalog"],
             hint: "remove it; the next corpus catalog fetches and verifies the catalog again"),
        Case(file: "corpora/main/tides/versions/1/install.json", command: ["verify"],
             hint: "reinstall the corpus: corpus install main/tides"),
        Case(file: "token", command: ["catalog"],
             hint: "store the token again (corpus logout, then corpus login TOKEN)"),
    ]

    @Test func eachDamagedLocalFileIsNamedWithItsRepair() async throws {
        let fixture = try InstalledPairFixture()
        for c in Self.cases {
            let client = try PublishedTreeClient(copying: fixture.client)
            let path = "\(client.home)/\(c.file)"
            try Data("{\"garbled\": ".utf8).write(to: URL(fileURLWithPath: path))
            let before = client.snapshot
            let (r, object) = try client.json(c.command)
            let error: [String: Any]?
            if c.command == ["verify"] {
                error = (object?["verified"] as? [[String: Any]])?.first { $0["corpus"] as? String == "main/tides" }?["error"] as? [String: Any]
            } else {
                error = InstalledPairFixture.error(object)
            }
            #expect(r.status == 7, "\(c): exit \(r.status): \(r.stdout) \(r.stderr)")
            #expect(error?["code"] as? String == "local-file", "\(c): \(r.stdout)")
            let message = error?["message"] as? String ?? ""
            #expect(message.hasPrefix("\(path), a file of this home folder, is damaged: "), "\(c): \(message)")
            #expect(error?["hint"] as? String == c.hint, "\(c): \(String(describing: error?["hint"]))")
            #expect(client.snapshot == before, "\(c): home changed")
        }
    }

    @Test func aDamagedFetchStateIsOnlyACacheAndIsReplaced() async throws {
        let fixture = try InstalledPairFixture()
        let client = fixture.client
        let path = "\(client.home)/state/main/fetch.json"
        #expect(FileManager.default.fileExists(atPath: path))
        try Data("{\"garbled\": ".utf8).write(to: URL(fileURLWithPath: path))
        let r = try client.run(["catalog"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let rewritten = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        // The validators of the freshness document, the file a refresh asks for first.
        #expect(rewritten?["url"] as? String == fixture.server.url + "/timestamp.json")
    }
}
