import Foundation
import Testing
import CorpusTestSupport

/// The publisher ships version 2 of a corpus while an app keeps searching: real `corpusd publish`
/// and `corpusd serve` on loopback, the real `corpus` client, and the searches in other processes.
@Suite struct UpdateFlowTests {
    /// Words only version 1 (or only version 2) of `tides.md` contains; the query every search of
    /// the loop runs matches both versions and the unchanged documents.
    static let v1Only = "astrolabe", v2Only = "chronometer"
    static let loopQuery = "harbor master tide tables"

    static func guide(version: String, instrument: String) -> IntegrationPublisher.CorpusSpec {
        .init(id: "harbor-guide", version: version, title: "Harbor guide", documents: [
            "lights.md": "# Harbor lights\n\n## Green and red\n\nThe harbor master checks the green and red lights at dusk; the tide tables hang by the door.\n",
            "tides.md": "# Tides\n\n## Instruments\n\nThe harbor master keeps a brass \(instrument) beside the tide tables.\n\n"
                + "## Charts\n\nCharts are drawn from the tide tables every week by the harbor master.\n",
        ])
    }

    static let notes = IntegrationPublisher.CorpusSpec(id: "harbor-notes", version: "1", title: "Harbor notes", documents: [
        "notes.md": "# Notes\n\nThe harbor master writes notes on the weather next to the tide tables.\n",
    ])

    @Test func syncSwapsVersionsUnderRunningSearchesAndASecondSyncCostsOneRequest() throws {
        let publisher = IntegrationPublisher()
        let key = try publisher.keygen("root")
        try publisher.writeCatalog([Self.guide(version: "1", instrument: Self.v1Only), Self.notes])
        try publisher.mustPublish(key: key.secret)
        let server = try publisher.serve()
        defer { server.stop() }

        let client = IntegrationClient()
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
        let install = try client.json(["install", "harbor-guide", "harbor-notes"])
        #expect(install.status == 0, "\(install.result.stderr)")
        #expect(install.object["changed"] as? Int == 2)

        let before = IntegrationHit.hits(try client.json(["search", Self.v1Only]).object)
        #expect(before.contains { $0.corpus == "harbor-guide" && $0.version == "1" && $0.document == "tides.md" && $0.text.contains(Self.v1Only) })

        // Version 2 of the guide: one document changed, the catalog bumped, the notes untouched.
        try publisher.writeCatalog([Self.guide(version: "2", instrument: Self.v2Only), Self.notes])
        try publisher.mustPublish(key: key.secret)
        #expect(try publisher.pointerVersion() == 2)

        // Searches run back to back in two other processes from before the sync until after it.
        let loops = try (0..<2).map { _ in try IntegrationSearchLoop(home: client.home, query: Self.loopQuery) }
        for loop in loops { try #require(loop.waitUntilFinished(1), "a search loop never completed a search") }
        let sync = try client.json(["sync"])
        let finishedBySyncEnd = loops.map(\.finished)
        // Two more each: the second of them started after the sync had exited.
        for (loop, n) in zip(loops, finishedBySyncEnd) { loop.waitUntilFinished(n + 2) }
        let runsPerLoop = loops.map { $0.stop() }

        #expect(sync.status == 0, "\(sync.result.stderr)")
        #expect(sync.object["changed"] as? Int == 1 && sync.object["failed"] as? Int == 0, "\(sync.result.stdout)")
        let results = (sync.object["results"] as? [[String: Any]]) ?? []
        let guideResult = results.first { ($0["corpus"] as? String ?? "").hasSuffix("harbor-guide") }
        #expect(guideResult?["status"] as? String == "updated")
        #expect(guideResult?["version"] as? String == "2" && guideResult?["previous_version"] as? String == "1")
        let notesResult = results.first { ($0["corpus"] as? String ?? "").hasSuffix("harbor-notes") }
        #expect(notesResult?["status"] as? String == "unchanged")

        // Every search succeeded and saw one whole version of the guide, never a mix.
        for (runs, n) in zip(runsPerLoop, finishedBySyncEnd) {
            #expect(runs.count >= n + 2, "only \(runs.count) searches ran")
            var versionsSeen: [String] = []
            for run in runs {
                #expect(run.status == 0, "search #\(run.number) exited \(run.status): \(run.stderr)")
                guard let object = try? IntegrationClient.parse(stdout: run.stdout, status: run.status, stderr: run.stderr) else {
                    Issue.record("search #\(run.number) printed no JSON: \(run.stdout.prefix(300)) \(run.stderr.prefix(300))")
                    continue
                }
                let hits = IntegrationHit.hits(object)
                #expect(!hits.isEmpty, "search #\(run.number) found nothing")
                let guideHits = hits.filter { $0.corpus == "harbor-guide" }
                let versions = Set(guideHits.map(\.version))
                #expect(versions.count == 1, "search #\(run.number) mixed guide versions \(versions)")
                guard let version = versions.first else { continue }
                versionsSeen.append(version)
                let tides = guideHits.filter { $0.document == "tides.md" && $0.text.contains("brass") }
                #expect(!tides.isEmpty, "search #\(run.number) did not find the changed passage")
                for hit in tides {
                    let (own, other) = version == "1" ? (Self.v1Only, Self.v2Only) : (Self.v2Only, Self.v1Only)
                    #expect(hit.text.contains(own) && !hit.text.contains(other), "search #\(run.number): version \(version) with text \(hit.text)")
                }
                #expect(hits.filter { $0.corpus == "harbor-notes" }.allSatisfy { $0.version == "1" })
            }
            #expect(versionsSeen.first == "1" && versionsSeen.last == "2", "versions seen in order: \(versionsSeen)")
            // Once a search saw version 2, no later search of the same loop went back to version 1.
            if let firstV2 = versionsSeen.firstIndex(of: "2") { #expect(!versionsSeen[firstV2...].contains("1"), "\(versionsSeen)") }
        }

        // After the sync: the new words are found, the old ones are gone, list shows version 2.
        let v2Hits = IntegrationHit.hits(try client.json(["search", Self.v2Only]).object)
        #expect(v2Hits.contains { $0.corpus == "harbor-guide" && $0.version == "2" && $0.lexicalRank != nil && $0.text.contains(Self.v2Only) })
        let v1Hits = IntegrationHit.hits(try client.json(["search", Self.v1Only]).object)
        #expect(!v1Hits.contains { $0.text.contains(Self.v1Only) }, "\(v1Hits)")
        let list = try client.json(["list"])
        let installed = Dictionary(((list.object["installed"] as? [[String: Any]]) ?? []).map { ($0["id"] as? String ?? "", $0["version"] as? String ?? "") },
                                   uniquingKeysWith: { a, _ in a })
        #expect(installed == ["harbor-guide": "2", "harbor-notes": "1"])

        // gc removes version 1, which stayed on disk for searches in flight; searching still works.
        let versionsDir = "\(client.home)/corpora/main/harbor-guide/versions"
        #expect(FileManager.default.fileExists(atPath: "\(versionsDir)/1"))
        let gc = try client.json(["gc"])
        #expect(gc.status == 0 && ((gc.object["removed_versions"] as? [Any])?.count ?? 0) == 1, "\(gc.result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "\(versionsDir)/1"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: versionsDir)) == ["2"])
        #expect(IntegrationHit.hits(try client.json(["search", Self.v2Only]).object).contains { $0.version == "2" })

        // A second sync has nothing to do and asks the server one question: is timestamp.json new?
        // (A tree's publish writes one, and a client that accepted it asks for it, not the pointer.)
        let logMark = server.accessLog.count
        let again = try client.json(["sync"])
        #expect(again.status == 0 && again.object["changed"] as? Int == 0 && again.object["failed"] as? Int == 0, "\(again.result.stdout)")
        #expect(((again.object["results"] as? [[String: Any]]) ?? []).allSatisfy { $0["status"] as? String == "unchanged" })
        // Stopping the server flushes every access-log line before they are counted.
        #expect(server.stop() == 0)
        let requests = Array(server.accessLog.dropFirst(logMark))
        #expect(requests.count == 1 && requests.first?.contains("\"GET /timestamp.json\" 304") == true, "\(requests)")
    }
}
