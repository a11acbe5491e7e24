import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// `install` and `sync` said "up to date" for a corpus whose installed files no longer verify.
/// They now notice (size and mtime recorded at install, then a full check of what changed) and
/// reinstall the same version, verified, reporting it as "repaired".
@Suite struct RepairInstallTests {
    func installed() async throws -> ClientTestEnvironment {
        let env = try ClientTestEnvironment()
        let v1 = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(v1)])
        #expect(try await env.client.install([WantedCorpus(id: "tides")]).map(\.kind) == [.installed])
        return env
    }

    var pack: String { BundleLayout.pack }

    @Test func aFlippedByteInTheInstalledPackIsRepairedByInstall() async throws {
        let env = try await installed()
        let folder = env.home.versionDirectory(remote: "main", id: "tides", version: "1")
        try flipByte("\(folder)/\(pack)")
        #expect(try env.client.verify(nil).first?.error != nil)
        let requests = env.bundleRequests.count

        let outcomes = try await env.client.install([WantedCorpus(id: "tides")])
        #expect(outcomes.map(\.kind.rawValue) == ["repaired"], "\(outcomes)")
        #expect(outcomes.first?.version == "1" && outcomes.first?.error == nil)
        #expect(env.bundleRequests.count == requests + 1, "the bundle was downloaded again")
        #expect(try env.client.verify(nil).map(\.error) == [nil])
        #expect(Set(try await env.search("ebb")) == ["tides@1"])
        #expect(env.entries(env.home.downloads).isEmpty && env.entries(env.home.staging).isEmpty)
    }

    @Test func aMissingVectorsFileIsRepairedBySync() async throws {
        let env = try await installed()
        let folder = env.home.versionDirectory(remote: "main", id: "tides", version: "1")
        try FileManager.default.removeItem(atPath: "\(folder)/\(BundleLayout.vectors)")
        let outcomes = try await env.client.sync(wanted: nil, prune: false)
        #expect(outcomes.map(\.kind.rawValue) == ["repaired"], "\(outcomes)")
        #expect(try env.client.verify(nil).map(\.error) == [nil])
    }

    @Test func anIntactCorpusIsUnchangedWithoutADownload() async throws {
        let env = try await installed()
        let requests = env.bundleRequests.count
        let before = env.snapshot
        #expect(try await env.client.install([WantedCorpus(id: "tides")]).map(\.kind) == [.unchanged])
        #expect(try await env.client.sync(wanted: nil, prune: false).map(\.kind) == [.unchanged])
        #expect(env.bundleRequests.count == requests)
        #expect(env.snapshot == before)
    }
}
