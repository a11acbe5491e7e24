import Testing
import Foundation
import CorpusTestSupport

/// `corpus sync --wanted FILE --json` as a script or a device fleet runs it: idempotent.
@Suite struct ClientSyncTests {
    static func changed(_ object: [String: Any]?) -> Int? { object?["changed"] as? Int }
    static func statuses(_ object: [String: Any]?) -> [String] {
        ((object?["results"] as? [[String: Any]]) ?? []).compactMap { r in
            (r["corpus"] as? String).map { "\($0)=\(r["status"] as? String ?? "?")" }
        }.sorted()
    }

    @Test func syncingTheSameWantedFileTwiceChangesNothingTheSecondTime() async throws {
        let fixture = try KillFixture()
        let client = PublishedTreeClient()
        try client.addRemote(fixture.server2.url, trust: fixture.tree.rootPub)
        let wanted = try client.folder.write("wanted.json", #"["base", {"id": "tides"}]"#)

        let first = try client.json(["sync", "--wanted", wanted])
        #expect(first.result.status == 0, "\(first.result.stderr)")
        #expect(Self.changed(first.object) == 2)
        #expect(Self.statuses(first.object) == ["main/base=installed", "main/tides=installed"])
        let after = client.snapshot

        let second = try client.json(["sync", "--wanted", wanted])
        #expect(second.result.status == 0)
        #expect(Self.changed(second.object) == 0)
        #expect(Self.statuses(second.object) == ["main/base=unchanged", "main/tides=unchanged"])
        #expect(client.snapshot == after, "a sync with nothing to do writes nothing")

        // --prune with a smaller list removes the rest, once.
        let smaller = try client.folder.write("smaller.json", #"["base"]"#)
        let pruned = try client.json(["sync", "--wanted", smaller, "--prune"])
        #expect(Self.changed(pruned.object) == 1)
        #expect(Self.statuses(pruned.object) == ["main/base=unchanged", "main/tides=removed"])
        let again = try client.json(["sync", "--wanted", smaller, "--prune"])
        #expect(Self.changed(again.object) == 0)
        #expect(try client.installed() == ["base@1"])
    }
}
