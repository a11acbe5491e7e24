import Foundation
import Testing
import CorpusTestSupport

/// The real `corpusd publish`: a republish of a catalog where most corpora did not change says so
/// in one line, whatever the catalog's size; `--verbose` lists them (issue 31, item 4).
@Suite struct PublishUnchangedSummaryTests {
    static let ids = ["atlas", "beacon", "charts", "dunes", "estuary"]

    static func corpora(_ versions: [String: String] = [:]) -> [IntegrationPublisher.CorpusSpec] {
        ids.map { id in
            let version = versions[id] ?? "1"
            return .init(id: id, version: version, documents: ["notes.md": "# \(id)\n\n## Tides\n\n\(id) notes, version \(version)."])
        }
    }

    /// Publishes all five, then again after `charts` changed (it gets a delta from version 1),
    /// then again after `dunes` changed; returns the third publish's result, where four corpora,
    /// `charts` with its delta among them, are unchanged.
    static func republish(options: [String]) throws -> ProcessResult {
        let publisher = IntegrationPublisher(catalogID: "summary")
        let key = try publisher.keygen("root")
        try publisher.writeCatalog(corpora())
        try publisher.mustPublish(key: key.secret)
        try publisher.writeCatalog(corpora(["charts": "2"]))
        try publisher.mustPublish(key: key.secret)
        try publisher.writeCatalog(corpora(["charts": "2", "dunes": "2"]))
        return try publisher.publish(key: key.secret, options: options)
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func unchangedCorporaAreCountedInOneLine() throws {
        let r = try Self.republish(options: [])
        #expect(r.status == 0, "\(r.stderr)")
        let all = Self.lines(r.stdout) + Self.lines(r.stderr)
        // One line counts them; no corpus has a line of its own for being unchanged.
        let unchanged = all.filter { $0.contains("unchanged") }
        #expect(unchanged.count == 1, "\(unchanged)")
        #expect(unchanged.first?.hasPrefix("published catalog summary version 3 (5 corpora, 1 built, 4 unchanged), expires ") == true)
        #expect(Self.lines(r.stderr).contains("built dunes: 1 document(s), 1 passage(s)"))
    }

    @Test func verboseListsEachUnchangedCorpus() throws {
        let r = try Self.republish(options: ["--verbose"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.lines(r.stderr).filter { $0.hasSuffix(" unchanged") } == ["atlas unchanged", "beacon unchanged", "charts unchanged", "estuary unchanged"])
        #expect(Self.lines(r.stdout).contains { $0.contains("(5 corpora, 1 built, 4 unchanged)") })
    }
}
