import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// security-cases.md: "a wanted-file naming an unknown id, with --prune: refused before anything
/// is removed" (apt's "no candidate"). Every unknown entry is named, and the home is unchanged.
@Suite struct WantedFileRefusalTests {
    /// tides and knots installed from catalog `main`.
    func environment() async throws -> ClientTestEnvironment {
        let env = try ClientTestEnvironment()
        let tides = try env.bundle(id: "tides", version: "1", words: "ebb")
        let knots = try env.bundle(id: "knots", version: "1", words: "bowline")
        try env.publish([try env.entry(tides), try env.entry(knots)])
        _ = try await env.client.install([WantedCorpus(id: "tides"), WantedCorpus(id: "knots")])
        return env
    }

    @Test func aTypoInAWantedFileWithPruneRemovesNothing() async throws {
        let env = try await environment()
        let wanted = [WantedCorpus(id: "tides"), WantedCorpus(id: "knost")]
        await env.expectRefusal(category: .notFound, message: Self.message(["knost (no catalog offers it)"])) {
            try await env.client.sync(wanted: wanted, prune: true)
        }
        #expect(env.client.installed().map(\.record.id).sorted() == ["knots", "tides"])
    }

    @Test func everyUnknownEntryIsNamed() async throws {
        let env = try await environment()
        let wanted = [WantedCorpus(id: "tides", version: CorpusVersion("9")), WantedCorpus(id: "nope"),
                      WantedCorpus(id: "elsewhere/knots"), WantedCorpus(id: "knots")]
        await env.expectRefusal(category: .notFound, message: Self.message([
            "tides@9 (version 9 is not offered; main offers 1)",
            "nope (no catalog offers it)",
            "elsewhere/knots (no catalog is named elsewhere)",
        ])) {
            try await env.client.sync(wanted: wanted, prune: false)
        }
    }

    @Test func aNameSeveralCatalogsOfferIsUnresolvedWithItsCandidates() throws {
        let tree = try StaticTreeFixture(bundleSize: 64)
        let docs = tree.entry(id: "docs")
        let planner = SyncPlanner(offered: [OfferedCorpus(remote: "a", entry: docs), OfferedCorpus(remote: "b", entry: docs)],
                                  installed: [], importLimit: nil)
        #expect(planner.unresolved([WantedCorpus(id: "docs"), WantedCorpus(id: "a/docs")], remotes: ["a", "b"])
                == ["docs (offered by several catalogs; use one of a/docs, b/docs)"])
    }

    static func message(_ entries: [String]) -> String {
        "the wanted-file names what no catalog offers: \(entries.joined(separator: "; ")); nothing was installed or removed"
    }
}
