import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// `CorpusClient` install, update, gc, remove and import against a real signed catalog with real
/// bundles on a loopback server: the states each step leaves, and the refusals that leave the
/// home byte-identical.
@Suite struct ClientInstallTests {
    @Test func installThenUpdateKeepsTheOldVersionUntilGC() async throws {
        let env = try ClientTestEnvironment()
        let v1 = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(v1)])
        let first = try await env.client.install([WantedCorpus(id: "tides")])
        #expect(first.map(\.kind) == [.installed])
        #expect(env.currentTarget("tides") == "versions/1")
        #expect(env.entries(env.home.downloads).isEmpty, "the verified download is removed once installed")

        let v2 = try env.bundle(id: "tides", version: "2", words: "flood")
        try env.publish([try env.entry(v2)])
        let second = try await env.client.sync(wanted: nil, prune: false)
        #expect(second.map(\.kind) == [.updated])
        #expect(second.first?.previousVersion == "1" && second.first?.version == "2")
        #expect(env.currentTarget("tides") == "versions/2")
        #expect(env.versions("tides") == ["1", "2"], "the old version stays for searches in flight")
        #expect(Set(try await env.search("flood")) == ["tides@2"])
        #expect(try await env.search("ebb").isEmpty)

        // gc removes the old version and leftovers: a dead process's staging folder, a stale partial, a stray link.
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        try FileIO.createDirectory(env.home.staging + "/\(dead.processIdentifier).7.main.tides.3")
        try Data("x".utf8).write(to: URL(fileURLWithPath: env.home.staging + "/\(dead.processIdentifier).7.main.tides.3/pack.sqlite"))
        try Data("partial".utf8).write(to: URL(fileURLWithPath: env.home.partial(sha256: SHA256Digest(hex: String(repeating: "c", count: 64))!)))
        let stray = env.home.currentLink(remote: "main", id: "tides") + ".tmp-\(dead.processIdentifier)"
        #expect(symlink("versions/1", stray) == 0)
        let report = try env.client.gc()
        #expect(report.removedVersions == ["main/tides@1"])
        #expect(report.removedPartials == ["\(String(repeating: "c", count: 64)).part"])
        #expect(report.removedStaging.contains("\(dead.processIdentifier).7.main.tides.3"))
        #expect(env.versions("tides") == ["2"])
        #expect(env.entries(env.home.staging).isEmpty)
        #expect(env.entries(env.home.downloads).isEmpty)
        #expect(env.entries(env.home.corpusDirectory(remote: "main", id: "tides")) == ["current", "versions"])
        #expect(try env.client.verify(nil).map(\.error) == [nil])
    }

    @Test func gcLeavesALiveProcesssStagingFolderAlone() async throws {
        let env = try ClientTestEnvironment()
        try env.home.createFolders()
        let live = Process()
        live.executableURL = URL(fileURLWithPath: "/bin/sleep")
        live.arguments = ["30"]
        try live.run()
        defer { kill(live.processIdentifier, SIGKILL); live.waitUntilExit() }
        let name = "\(live.processIdentifier).9.main.tides.1"
        try FileIO.createDirectory("\(env.home.staging)/\(name)")
        try FileIO.createDirectory("\(env.home.staging)/.\(name).staging-\(live.processIdentifier)-5")
        let report = try env.client.gc()
        #expect(report.removedStaging.isEmpty)
        #expect(env.entries(env.home.staging) == [".\(name).staging-\(live.processIdentifier)-5", name])
    }

    @Test func removeThenReinstall() async throws {
        let env = try ClientTestEnvironment()
        let v1 = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(v1)])
        _ = try await env.client.install([WantedCorpus(id: "tides")])
        let removed = try env.client.remove("tides")
        #expect(removed.qualifiedName == "main/tides")
        #expect(env.client.installed().isEmpty)
        #expect(!FileIO.exists(env.home.corpusDirectory(remote: "main", id: "tides")))
        #expect(try await env.search("ebb").isEmpty)
        await env.expectRefusal(.notInstalled(name: "tides")) { try env.client.remove("tides") }
        #expect(try await env.client.install([WantedCorpus(id: "tides")]).map(\.kind) == [.installed])
        #expect(Set(try await env.search("ebb")) == ["tides@1"])
    }

    @Test func theImportLimitRefusesBeforeAnyBundleIsRequested() async throws {
        let env = try ClientTestEnvironment()
        let a = try env.bundle(id: "tides", version: "1", words: "ebb")
        let b = try env.bundle(id: "knots", version: "1", words: "bowline")
        let starter = try env.bundle(id: "starter", version: "1", words: "welcome")
        try env.publish([try env.entry(a), try env.entry(b), try env.entry(starter, bundled: true)])
        var config = try env.client.config()
        config.importLimit = 1
        try config.save(env.home)
        #expect(try await env.client.install([WantedCorpus(id: "tides")]).map(\.kind) == [.installed])
        let requestsBefore = env.bundleRequests.count
        let before = env.snapshot
        let outcomes = try await env.client.install([WantedCorpus(id: "knots")])
        #expect(outcomes.map(\.kind) == [.failed])
        #expect(outcomes.first?.error == .importLimit(used: 1, limit: 1))
        #expect(env.bundleRequests.count == requestsBefore, "no bundle was requested")
        #expect(env.snapshot == before)
        // A bundled starter corpus does not count.
        #expect(try await env.client.install([WantedCorpus(id: "starter")]).map(\.kind) == [.installed])
    }

    @Test func anImportCountsAgainstTheLimit() async throws {
        let env = try ClientTestEnvironment()
        let a = try env.bundle(id: "tides", version: "1", words: "ebb")
        let b = try env.bundle(id: "knots", version: "1", words: "bowline")
        try env.publish([try env.entry(a)])
        var config = try env.client.config()
        config.importLimit = 1
        try config.save(env.home)
        // Catalogs need fetching once so the root key chain is known; then the import uses the pinned key.
        let m = try env.client.importBundle(path: b.path)
        #expect(m.id == "knots")
        #expect(env.currentTarget("knots", remote: "local") == "versions/1")
        let before = env.snapshot
        let requestsBefore = env.bundleRequests.count
        let outcomes = try await env.client.install([WantedCorpus(id: "tides")])
        #expect(outcomes.first?.error == .importLimit(used: 1, limit: 1))
        #expect(env.bundleRequests.count == requestsBefore)
        #expect(env.snapshot == before)
        // And an import past the limit is refused the same way.
        _ = try env.client.remove("knots")
        _ = try await env.client.install([WantedCorpus(id: "tides")])
        await env.expectRefusal(.importLimit(used: 1, limit: 1)) { try env.client.importBundle(path: b.path) }
    }

    @Test func aCatalogEntryNamingAnotherCorpusOrVersionIsRefusedAndTheHomeIsUnchanged() async throws {
        let env = try ClientTestEnvironment()
        let good = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(good)])
        _ = try await env.client.install([WantedCorpus(id: "tides")])
        let knots = try env.bundle(id: "knots", version: "2", words: "bowline")
        let cases: [(CatalogEntry, String)] = [
            // The catalog says tides 2 but the bundle it names is knots 2.
            (try env.entry(knots, claimID: "tides"), "the bundle holds knots 2, the catalog promised tides 2"),
            // The catalog says tides 3 but the bundle is tides 2.
            (try env.entry(try env.bundle(id: "tides", version: "2", words: "flood"), claimVersion: "3"),
             "the bundle holds tides 2, the catalog promised tides 3"),
        ]
        for (entry, reason) in cases {
            try env.publish([entry])
            let before = env.snapshot
            let outcomes = try await env.client.sync(wanted: nil, prune: false)
            #expect(outcomes.map(\.kind) == [.failed])
            #expect(outcomes.first?.error == .catalogMismatch(reason: reason))
            #expect(env.snapshot == before, "home changed:\n\(before)\n---\n\(env.snapshot)")
        }
        #expect(env.currentTarget("tides") == "versions/1")
    }

    @Test func aCorruptPackOfferedByTheCatalogIsRefusedAtInstallNotAtQueryTime() async throws {
        let env = try ClientTestEnvironment()
        let good = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(good)])
        _ = try await env.client.install([WantedCorpus(id: "tides")])
        let bad = try env.bundle(id: "tides", version: "2", words: "flood", tamperPack: corruptPackPages)
        try env.publish([try env.entry(bad)])
        let before = env.snapshot
        let outcomes = try await env.client.sync(wanted: nil, prune: false)
        guard case let .unsafePack(what, cause)? = outcomes.first?.error, case let .integrityCheckFailed(name, _) = cause else {
            Issue.record("expected an unsafe pack refused by the integrity check, got \(outcomes)")
            return
        }
        #expect(what == "main/tides" && name == "main/tides" && cause.description.contains("integrity check"))
        #expect(env.snapshot == before, "home changed:\n\(before)\n---\n\(env.snapshot)")
        #expect(Set(try await env.search("ebb")) == ["tides@1"])
    }

    @Test func aSecondInstallOfTheSameVersionAfterTheFirstIsUnchangedWithoutADownload() async throws {
        let env = try ClientTestEnvironment()
        let v1 = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(v1)])
        _ = try await env.client.install([WantedCorpus(id: "tides")])
        let requests = env.bundleRequests.count
        let before = env.snapshot
        // The plan was made before the lock; an install that finds the version already current reports it unchanged.
        let operation = try ClientOperation.begin(env.client, network: true)
        let catalogs = try await operation.catalogRefresher().fetchAll()
        let forced = try await PlanExecutor(operation, catalogs: catalogs, progress: nil)
            .perform([.install(OfferedCorpus(remote: "main", entry: try env.entry(v1)))])
        #expect(forced.map(\.kind) == [.unchanged])
        #expect(env.bundleRequests.count == requests)
        #expect(env.snapshot == before)
    }
}
