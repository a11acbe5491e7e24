import Testing
import Foundation
import CorpusTestSupport

/// `corpus sync --wanted FILE --prune=no` pruned: the parser dropped the `=no` of a flag, so a
/// script saying "do not prune" removed every corpus its wanted-file left out. A value given to
/// a flag is a usage error, before anything runs.
@Suite struct FlagValueRefusalCLITests {
    @Test func pruneEqualsNoIsAUsageErrorAndRemovesNothing() async throws {
        let fixture = try InstalledPairFixture()
        let client = fixture.client
        let wanted = try client.folder.write("wanted.json", #"["base"]"#)
        let before = client.snapshot

        let (r, object) = try client.json(["sync", "--wanted", wanted, "--prune=no"])
        #expect(r.status == 2, "\(r.stdout) \(r.stderr)")
        let error = InstalledPairFixture.error(object)
        #expect(error?["code"] as? String == "usage", "\(r.stdout)")
        #expect(error?["message"] as? String == "sync: option --prune takes no value, but was given one: --prune=no", "\(r.stdout)")
        #expect(client.snapshot == before, "home changed:\n\(before)\n---\n\(client.snapshot)")
        #expect(try client.installed() == ["base@1", "tides@1"])

        // The same in text mode, and for a global flag.
        let text = try client.run(["sync", "--wanted", wanted, "--prune=yes"])
        #expect(text.status == 2 && text.stderr.hasPrefix("error: sync: option --prune takes no value"), "\(text.stderr)")
        let global = try client.run(["list", "--quiet=false"])
        #expect(global.status == 2 && global.stderr.hasPrefix("error: list: option --quiet takes no value"), "\(global.stderr)")
        #expect(client.snapshot == before)
    }
}
