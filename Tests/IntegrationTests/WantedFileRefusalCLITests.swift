import Testing
import Foundation
import CorpusTestSupport

/// `corpus sync --wanted FILE --prune` with a typo used to remove installed corpora, then exit 6.
/// An unknown entry now stops the sync before anything is removed or installed.
@Suite struct WantedFileRefusalCLITests {
    @Test func aTypoInTheWantedFileRemovesNothingAndExitsNotFound() async throws {
        let fixture = try InstalledPairFixture()
        let client = fixture.client
        let wanted = try client.folder.write("wanted.json", #"["base", "tdies", "base@7", "other/tides"]"#)
        let before = client.snapshot

        let (r, object) = try client.json(["sync", "--wanted", wanted, "--prune"])
        #expect(r.status == 6, "\(r.stdout) \(r.stderr)")
        let error = InstalledPairFixture.error(object)
        #expect(error?["code"] as? String == "not-found", "\(r.stdout)")
        let message = error?["message"] as? String ?? ""
        #expect(message == "the wanted-file names what no catalog offers: tdies (no catalog offers it); base@7 (version 7 is not offered; main offers 1); other/tides (no catalog is named other); nothing was installed or removed",
                "\(message)")
        #expect(client.snapshot == before, "home changed:\n\(before)\n---\n\(client.snapshot)")
        #expect(try client.installed() == ["base@1", "tides@1"])

        // Text mode says the same on one line of stderr.
        let text = try client.run(["sync", "--wanted", wanted, "--prune"])
        #expect(text.status == 6)
        #expect(text.stderr.hasPrefix("error: the wanted-file names what no catalog offers: tdies"), "\(text.stderr)")
        #expect(client.snapshot == before)
    }
}
