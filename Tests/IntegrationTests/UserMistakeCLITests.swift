import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// A user's mistake is not an attack: an ambiguous corpus name, a remote already pinned to
/// another key, the reserved remote name `local`, a remote name or URL that cannot be one, a
/// version that is no version. Each was reported as `unsafe-input` (exit 3, "tell its
/// publisher" or "the file is damaged or crafted"); each is now a usage error (exit 2) with its
/// own code and a hint that says what to type, and leaves the home as it was.
@Suite struct UserMistakeCLITests {
    /// The pair's tree added a second time as remote `other`: both offer `base` and `tides`.
    static func twoCatalogs() throws -> InstalledPairFixture {
        let fixture = try InstalledPairFixture()
        let r = try fixture.client.run(["remote", "add", "other", fixture.server.url, "--trust", fixture.tree.rootPub])
        try #require(r.status == 0, "\(r.stderr)")
        return fixture
    }

    /// Runs `args` with `--json` and checks the refusal: exit 2, `code`, `message`, `hint`, home unchanged.
    static func expectMistake(_ client: PublishedTreeClient, _ args: [String], code: String, message: String, hint: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = client.snapshot
        let (r, object) = try client.json(args)
        #expect(r.status == 2, "\(args): \(r.stdout) \(r.stderr)", sourceLocation: sourceLocation)
        let error = (object?["error"] as? [String: Any]) ?? ((object?["results"] as? [[String: Any]])?.first?["error"] as? [String: Any])
        #expect(error?["code"] as? String == code, "\(args): \(r.stdout)", sourceLocation: sourceLocation)
        #expect(error?["message"] as? String == message, "\(args): \(r.stdout)", sourceLocation: sourceLocation)
        #expect(error?["hint"] as? String == hint, "\(args): \(r.stdout)", sourceLocation: sourceLocation)
        #expect(client.snapshot == before, "\(args) changed the home:\n\(before)\n---\n\(client.snapshot)", sourceLocation: sourceLocation)
    }

    static let ambiguousHint = "name it with its catalog, as CATALOG/ID: one of main/tides, other/tides"

    @Test func anAmbiguousNameInShowAndInstallIsAUsageError() throws {
        let fixture = try Self.twoCatalogs()
        let client = fixture.client
        _ = try client.run(["catalog"])   // both catalogs accepted, so the refusals below change nothing
        // `catalog` reads the listing parts; the entries `show` and `install` read come from the trie.
        _ = try client.run(["show", "main/tides"])
        try Self.expectMistake(client, ["show", "tides"], code: "ambiguous-name",
                               message: "corpus name tides is ambiguous: it names main/tides and other/tides", hint: Self.ambiguousHint)
        try Self.expectMistake(client, ["install", "tides"], code: "ambiguous-name",
                               message: "corpus name tides is ambiguous: it names main/tides and other/tides", hint: Self.ambiguousHint)
        let text = try client.run(["show", "tides"])
        #expect(text.status == 2)
        #expect(text.stderr == "error: corpus name tides is ambiguous: it names main/tides and other/tides (\(Self.ambiguousHint))\n", "\(text.stderr)")
    }

    @Test func anAmbiguousNameInRemoveIsAUsageErrorAndRemovesNothing() throws {
        let fixture = try Self.twoCatalogs()
        let client = fixture.client
        try KillFixture.expectSuccess(try client.run(["install", "other/tides"]), "corpus install other/tides")
        try Self.expectMistake(client, ["remove", "tides"], code: "ambiguous-name",
                               message: "corpus name tides is ambiguous: it names main/tides and other/tides", hint: Self.ambiguousHint)
        #expect(try client.installed() == ["base@1", "tides@1", "tides@1"])
    }

    /// The wanted-file names every entry it cannot use in one refusal (exit 6), an ambiguous one
    /// with its candidates: it is not `unsafe-input` either.
    @Test func anAmbiguousNameInAWantedFileIsNamedWithItsCandidates() throws {
        let fixture = try Self.twoCatalogs()
        let client = fixture.client
        let wanted = try client.folder.write("wanted.json", #"["base", "tides"]"#)
        let before = client.snapshot
        let (r, object) = try client.json(["sync", "--wanted", wanted, "--prune"])
        #expect(r.status == 6, "\(r.stdout)")
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "not-found")
        #expect(error?["message"] as? String == "the wanted-file names what no catalog offers: base (offered by several catalogs; use one of main/base, other/base); tides (offered by several catalogs; use one of main/tides, other/tides); nothing was installed or removed", "\(r.stdout)")
        #expect(client.snapshot == before)
    }

    @Test func reRemotingAPinnedRemoteToAnotherKeyIsAUsageError() throws {
        let fixture = try InstalledPairFixture()
        let client = fixture.client
        let stranger = fixture.tree.work.url("keys/stranger.pub")
        let pinned = try Self.keyID(fixture.tree.rootPub), given = try Self.keyID(stranger)
        try Self.expectMistake(client, ["remote", "add", "main", fixture.server.url, "--trust", stranger], code: "remote-pinned",
                               message: "remote main is already pinned to key \(pinned); refused to pin it to key \(given)",
                               hint: "if the publisher did change its key, run corpus remote remove main, then corpus remote add again; otherwise check the .pub file")
    }

    @Test func theReservedRemoteNameIsAUsageError() throws {
        let fixture = try InstalledPairFixture()
        try Self.expectMistake(fixture.client, ["remote", "add", "local", fixture.server.url, "--trust", fixture.tree.rootPub], code: "reserved-name",
                               message: "the remote name local is reserved for bundles installed with corpus import",
                               hint: "choose another name for the remote")
    }

    @Test func aRemoteNameOrURLThatCannotBeOneIsAUsageError() throws {
        let fixture = try InstalledPairFixture()
        try Self.expectMistake(fixture.client, ["remote", "add", "../x", fixture.server.url, "--trust", fixture.tree.rootPub], code: "invalid-remote",
                               message: #"remote name "../x" is not a valid id (1-64 of a-z 0-9 . _ -, starting with a letter or digit)"#,
                               hint: "a remote name is 1-64 of a-z 0-9 . _ - (starting with a letter or digit); its URLs start with http:// or https://")
        try Self.expectMistake(fixture.client, ["remote", "add", "x", "ftp://h/tree", "--trust", fixture.tree.rootPub], code: "invalid-remote",
                               message: "remote URL ftp://h/tree is not an http or https URL",
                               hint: "a remote name is 1-64 of a-z 0-9 . _ - (starting with a letter or digit); its URLs start with http:// or https://")
    }

    @Test func aVersionThatIsNoVersionIsAUsageError() throws {
        let fixture = try InstalledPairFixture()
        try Self.expectMistake(fixture.client, ["install", "tides@1..2"], code: "usage",
                               message: #"ID[@VERSION] "tides@1..2" is not an id with an optional @VERSION, like tides or tides@3 or tides@1.2.0"#,
                               hint: "run with --help to see the commands and their options")
    }

    /// The key id of a minisign .pub file, as the client prints key ids.
    static func keyID(_ pub: String) throws -> String {
        try PublicKey(contentsOf: pub).keyID.description
    }
}
