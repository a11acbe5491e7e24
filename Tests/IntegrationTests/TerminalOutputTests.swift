import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// security-cases.md: "control characters, ESC/CSI/OSC sequences, bidi overrides in catalog fields
/// or document text: stored as data; never reach a terminal raw" (CVE-2021-25743-style terminal
/// injection, Trojan Source). A signed catalog, manifest and pack carry them; every command's
/// human-readable output shows them escaped, and `--json` keeps them exact.
@Suite struct TerminalOutputTests {
    /// Clear screen, an OSC 8 hyperlink, a right-to-left override, a carriage return, a C1 CSI, DEL, BEL.
    static let hostile = "\u{1B}[2J\u{1B}]8;;http://evil.example/\u{07}click\u{1B}]8;;\u{07} \u{202E}gnp.exe\rspoofed \u{9B}31mred\u{7F}"
    static let title = "Harbour notes " + hostile
    static let description = "Charts and " + hostile
    static let passage = "tidewater soundings " + hostile

    /// Byte sequences that must never appear in human-readable output.
    static let forbidden: [(String, [UInt8])] = [
        ("ESC", [0x1B]), ("BEL", [0x07]), ("CR", [0x0D]), ("DEL", [0x7F]),
        ("U+202E", Array("\u{202E}".utf8)), ("U+009B", Array("\u{9B}".utf8)),
    ]

    static func rawControls(_ bytes: [UInt8]) -> [String] {
        forbidden.filter { _, needle in
            bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
        }.map(\.0)
    }

    final class World: @unchecked Sendable {
        let tree: StaticTreeFixture
        let work = TempDirectory("hostile-bundles")
        let bundle: SignedBundle
        let server: ServerProcess
        let client = PublishedTreeClient()

        init() throws {
            tree = try StaticTreeFixture()
            let pack = PackFixture(id: "harbour", title: TerminalOutputTests.title, documents: [
                .init(path: "notes/harbour.md", title: "Harbour " + TerminalOutputTests.hostile,
                      passages: [.init(section: "Section " + TerminalOutputTests.hostile, TerminalOutputTests.passage)]),
            ])
            bundle = try tree.signedBundle(pack, work: work)
            let entry = try tree.catalogEntry(for: bundle, title: TerminalOutputTests.title, description: TerminalOutputTests.description)
            try tree.publish(version: 2, corpora: [entry])
            server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}"])
            try client.addRemote(server.url, trust: tree.root + "/keys/root.pub")
        }

        deinit { server.stop() }
    }

    @Test func noCommandWritesRawControlSequences() async throws {
        let world = try World()
        let client = world.client
        let token = try EntitlementToken.issue(key: world.tree.rootKeys[0], issuer: "test", subject: "reader " + Self.hostile,
                                               audience: nil, corpora: ["harbour"], lifetime: 3600).compact
        let runs: [(args: [String], status: Int32)] = [
            (["catalog"], 0), (["show", "harbour"], 0), (["install", "harbour"], 0), (["list"], 0),
            (["search", "tidewater"], 0), (["status"], 0), (["verify"], 0), (["sync"], 0), (["gc"], 0),
            (["import", world.bundle.path], 0), (["login", token], 0), (["status"], 0), (["remote", "list"], 0),
            (["install", "ghost\u{1B}[2J\u{202E}"], 6), (["show", "ghost\u{9B}31m\r"], 6),
        ]
        for run in runs {
            let r = try client.run(run.args)
            let label = run.args.first ?? ""
            #expect(r.status == run.status, "\(label): exit \(r.status): \(r.stderr)")
            #expect(Self.rawControls(Array(r.stdoutData)) == [], "corpus \(label) stdout: \(r.stdout.debugDescription)")
            #expect(Self.rawControls(Array(r.stderr.utf8)) == [], "corpus \(label) stderr: \(r.stderr.debugDescription)")
        }
        // The text is shown, escaped, not dropped.
        let catalog = try client.run(["catalog"])
        #expect(catalog.stdout.contains(TerminalText.sanitizeLine(Self.title)), "\(catalog.stdout)")
        #expect(catalog.stdout.contains(TerminalText.sanitize(Self.description)), "\(catalog.stdout)")
        #expect(catalog.stdout.contains(#"\x1b[2J\x1b]8;;http://evil.example/\x07click"#), "\(catalog.stdout)")
        #expect(catalog.stdout.contains(#"<U+202E>gnp.exe\rspoofed <U+009B>31mred\x7f"#), "\(catalog.stdout)")
        let search = try client.run(["search", "tidewater"])
        #expect(search.stdout.contains("«tidewater» " + TerminalText.sanitizeLine("soundings " + Self.hostile)), "\(search.stdout)")
        let missing = try client.run(["show", "ghost\u{1B}[2J"])
        #expect(missing.stderr.contains(#"ghost\x1b[2J"#), "\(missing.stderr)")
    }

    @Test func jsonOutputKeepsTheExactText() async throws {
        let world = try World()
        let client = world.client
        let catalog = try client.json(["catalog"])
        let row = (catalog.object?["corpora"] as? [[String: Any]])?.first
        #expect(row?["title"] as? String == Self.title)
        #expect(row?["description"] as? String == Self.description)
        #expect(try client.run(["install", "harbour"]).status == 0)
        let list = try client.json(["list"])
        #expect((list.object?["installed"] as? [[String: Any]])?.first?["title"] as? String == Self.title)
        let search = try client.json(["search", "tidewater"])
        let hit = (search.object?["hits"] as? [[String: Any]])?.first
        #expect(hit?["text"] as? String == Self.passage)
        #expect(hit?["section"] as? String == "Section " + Self.hostile)
        #expect(hit?["title"] as? String == "Harbour " + Self.hostile)
    }
}
