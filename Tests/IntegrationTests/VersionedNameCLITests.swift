import Testing
import Foundation
import CorpusTestSupport

/// `ID[@VERSION]` with nothing on one side of the `@` is a usage error (exit 2) naming what is
/// missing, on the command line and in a wanted-file, and leaves the home as it was. `install
/// tides@` used to install tides (the empty version was dropped); `install @1` looked for a corpus
/// called "1" (exit 6); a wanted-file entry `"tides@"` synced tides.
@Suite struct VersionedNameCLITests {
    static let hint = "run with --help to see the commands and their options"

    @Test func installRefusesAnEmptyIDOrVersion() throws {
        let fixture = try InstalledPairFixture()
        try UserMistakeCLITests.expectMistake(fixture.client, ["install", "tides@"], code: "usage",
                                              message: #"ID[@VERSION] "tides@" has no VERSION after the @"#, hint: Self.hint)
        try UserMistakeCLITests.expectMistake(fixture.client, ["install", "@1"], code: "usage",
                                              message: #"ID[@VERSION] "@1" has no ID before the @"#, hint: Self.hint)
        try UserMistakeCLITests.expectMistake(fixture.client, ["install", ""], code: "usage",
                                              message: #"ID[@VERSION] "" names no corpus: it has no ID"#, hint: Self.hint)
        // Text mode: one line, the same words, exit 2.
        let text = try fixture.client.run(["install", "base", "tides@"])
        #expect(text.status == 2, "\(text.stdout) \(text.stderr)")
        #expect(text.stderr == "error: ID[@VERSION] \"tides@\" has no VERSION after the @ (\(Self.hint))\n", "\(text.stderr)")
    }

    @Test func aWantedFileEntryWithoutItsVersionIsAUsageError() throws {
        let fixture = try InstalledPairFixture()
        let wanted = try fixture.client.folder.write("wanted.json", #"["base", "tides@"]"#)
        try UserMistakeCLITests.expectMistake(fixture.client, ["sync", "--wanted", wanted, "--prune"], code: "usage",
                                              message: #"\#(wanted): the entry "tides@" has no VERSION after the @"#,
                                              hint: #"write e.g. ["docs", "field-guide-tides@2", {"id": "x", "version": "1"}]"#)
        let unnamed = try fixture.client.folder.write("unnamed.json", #"["base", {"id": "", "version": "1"}]"#)
        try UserMistakeCLITests.expectMistake(fixture.client, ["sync", "--wanted", unnamed], code: "usage",
                                              message: #"\#(unnamed): the entry "" names no corpus: it has no ID"#,
                                              hint: #"write e.g. ["docs", "field-guide-tides@2", {"id": "x", "version": "1"}]"#)
    }
}
