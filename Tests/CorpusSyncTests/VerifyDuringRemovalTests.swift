import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// `verify` while another process removes or updates a corpus: the folder it listed disappears
/// before its files are read (exit 3 `SQLITE_CANTOPEN` "repair it with…", or exit 7 "No such
/// file" before). `verify` lists the installed corpora, then checks each (`InstalledVerification.check`);
/// these tests change the home between the two, deterministically, by calling the per-corpus check
/// with what was listed after the change.
@Suite struct VerifyDuringRemovalTests {
    /// `tides` and `knots` installed from a real catalog; the listing `verify` starts from.
    func installedPair() async throws -> (ClientTestEnvironment, [InstalledVersion]) {
        let env = try ClientTestEnvironment()
        try env.publish([try env.entry(try env.bundle(id: "tides", version: "1", words: "ebb")),
                         try env.entry(try env.bundle(id: "knots", version: "1", words: "bowline"))])
        #expect(try await env.client.install([WantedCorpus(id: "tides"), WantedCorpus(id: "knots")]).map(\.kind) == [.installed, .installed])
        return (env, env.home.installed())
    }

    func verification(_ env: ClientTestEnvironment) throws -> InstalledVerification {
        InstalledVerification(home: env.home, config: try ClientConfig.load(env.home))
    }

    func listed(_ id: String, in listing: [InstalledVersion]) throws -> InstalledVersion {
        try #require(listing.first { $0.record.id == id })
    }

    @Test func aCorpusRemovedAfterTheListingIsReportedRemovedNotDamaged() async throws {
        let (env, listing) = try await installedPair()
        _ = try env.client.remove("main/tides")
        let check = try verification(env)
        let outcome = check.check(try listed("tides", in: listing))
        #expect(outcome.name == "main/tides")
        #expect(outcome.removed && outcome.error == nil, "\(String(describing: outcome.error))")
        let other = check.check(try listed("knots", in: listing))
        #expect(!other.removed && other.error == nil)
    }

    @Test func aCorpusUpdatedAfterTheListingIsCheckedAtItsNewVersion() async throws {
        let (env, listing) = try await installedPair()
        try env.publish([try env.entry(try env.bundle(id: "tides", version: "2", words: "flood")),
                         try env.entry(try env.bundle(id: "knots", version: "1", words: "bowline"))])
        _ = try await env.client.sync(wanted: nil, prune: false)
        #expect(try env.client.gc().removedVersions == ["main/tides@1"])
        let outcome = try verification(env).check(try listed("tides", in: listing))
        #expect(!outcome.removed && outcome.error == nil, "\(String(describing: outcome.error))")
    }

    @Test func aCorpusStillInstalledWithAFileGoneIsStillDamaged() async throws {
        let (env, listing) = try await installedPair()
        let tides = try listed("tides", in: listing)
        #expect(unlink("\(tides.directory)/\(BundleLayout.pack)") == 0)
        let outcome = try verification(env).check(tides)
        #expect(!outcome.removed)
        #expect(outcome.error == .io(operation: "open", path: "\(tides.directory)/\(BundleLayout.pack)", errno: ENOENT),
                "\(String(describing: outcome.error))")
    }
}
