import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
import Synchronization
@testable import CorpusSync

/// The installer on its own: real signed bundles installed into a real home folder, and the
/// refusals it owns (wrong bundle for the catalog entry, corrupt pack, lock held), each leaving
/// the home byte-identical.
@Suite struct InstallerTests {
    func installer(_ env: ClientTestEnvironment) -> Installer {
        Installer(home: env.home)
    }

    func expectation(_ b: ClientTestEnvironment.Bundle) -> Installer.Expectation {
        .init(id: b.manifest.id, version: b.manifest.version, content: b.manifest.content)
    }

    @Test func installPointsCurrentAtTheVersionFolderWithItsRecord() async throws {
        let env = try ClientTestEnvironment()
        let b = try env.bundle(id: "tides", version: "3", words: "neap springs")
        let m = try installer(env).install(bundlePath: b.path, remote: "main", expected: expectation(b), bundled: false,
                                           trustedKeys: [env.key.publicKey])
        #expect(m == b.manifest)
        #expect(env.currentTarget("tides") == "versions/3")
        let dir = env.home.versionDirectory(remote: "main", id: "tides", version: "3")
        #expect(env.entries(dir) == ["corpus.json", "corpus.json.minisig", "install.json", "pack.sqlite", "vectors.bin"])
        let record = try #require(InstallRecord.read(versionDirectory: dir))
        #expect(record.id == "tides" && record.version == CorpusVersion("3")! && record.remote == "main" && !record.bundled)
        #expect(record.bundleSHA256 == SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: b.path))))
        #expect(env.entries(env.home.staging).isEmpty)
        #expect(Set(try await env.search("neap")) == ["tides@3"])
    }

    @Test func aBundleForAnotherCorpusOrVersionIsRefusedBeforeAnythingIsWritten() async throws {
        let env = try ClientTestEnvironment()
        let b = try env.bundle(id: "tides", version: "2", words: "ebb")
        try env.home.createFolders()
        let wrong: [(Installer.Expectation, String)] = [
            (.init(id: "knots", version: b.manifest.version, content: b.manifest.content), "the catalog promised knots 2"),
            (.init(id: "tides", version: CorpusVersion("3")!, content: b.manifest.content), "the catalog promised tides 3"),
        ]
        for (expected, promise) in wrong {
            await env.expectRefusal(.catalogMismatch(reason: "the bundle holds tides 2, \(promise)")) {
                try installer(env).install(bundlePath: b.path, remote: "main", expected: expected, bundled: false, trustedKeys: [env.key.publicKey])
            }
        }
        // Same id and version, other content: still another bundle than the catalog signed for.
        var otherDigest = expectation(b)
        otherDigest.content = .filled("0")
        await env.expectRefusal(.catalogMismatch(reason: "the bundle holds tides 2, the catalog promised tides 2")) {
            try installer(env).install(bundlePath: b.path, remote: "main", expected: otherDigest, bundled: false, trustedKeys: [env.key.publicKey])
        }
    }

    @Test func aCorruptPackWithCorrectlySignedHashesIsRefusedAtInstall() async throws {
        let env = try ClientTestEnvironment()
        let good = try env.bundle(id: "tides", version: "1", words: "ebb")
        try installer(env).install(bundlePath: good.path, remote: "main", expected: expectation(good), bundled: false, trustedKeys: [env.key.publicKey])
        // Version 2's pack is damaged before the manifest hashes it, so every hash and the signature hold.
        let bad = try env.bundle(id: "tides", version: "2", words: "flood", tamperPack: corruptPackPages)
        let before = env.snapshot
        do {
            try installer(env).install(bundlePath: bad.path, remote: "main", expected: expectation(bad), bundled: false, trustedKeys: [env.key.publicKey])
            Issue.record("a corrupt pack was installed")
        } catch let SyncError.unsafePack(corpus, cause) {
            #expect(corpus == "main/tides")
            // The engine's own refusal, carried as it was thrown, naming the corpus it was installed as.
            guard case let .integrityCheckFailed(name, problems) = cause else {
                Issue.record("expected the integrity check's refusal, got \(cause)")
                return
            }
            #expect(name == "main/tides" && !problems.isEmpty && problems != ["ok"], "\(problems)")
            #expect(cause.description.contains("integrity check"), "\(cause)")
        }
        #expect(env.snapshot == before)
        #expect(env.currentTarget("tides") == "versions/1")
        #expect(Set(try await env.search("ebb")) == ["tides@1"])
    }

    @Test func anotherProcessHoldingTheCorpusLockIsReportedNotWaitedForeverOn() async throws {
        let env = try ClientTestEnvironment()
        let b = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.home.createFolders()
        let held = try installer(env).corpusLock(remote: "main", id: "tides", wait: .no)
        // flock locks belong to the open file, so a second open in this process conflicts like another process would.
        await env.expectRefusal(.lockHeld(path: env.home.lockFile("corpus-main.tides"))) {
            try installer(env).install(bundlePath: b.path, remote: "main", expected: expectation(b), bundled: false,
                                       trustedKeys: [env.key.publicKey], lockWait: .no)
        }
        withExtendedLifetime(held) {}
    }

    @Test func aLeftoverVersionFolderMissingFilesIsReplacedNotReused() async throws {
        let env = try ClientTestEnvironment()
        let b = try env.bundle(id: "tides", version: "1", words: "ebb")
        try installer(env).install(bundlePath: b.path, remote: "main", expected: expectation(b), bundled: false, trustedKeys: [env.key.publicKey])
        // What a delete interrupted half-way used to leave: install.json present, the pack gone.
        let dir = env.home.versionDirectory(remote: "main", id: "tides", version: "1")
        unlink(env.home.currentLink(remote: "main", id: "tides"))
        unlink("\(dir)/pack.sqlite")
        try installer(env).install(bundlePath: b.path, remote: "main", expected: expectation(b), bundled: false, trustedKeys: [env.key.publicKey])
        #expect(env.entries(dir).contains("pack.sqlite"))
        #expect(Set(try await env.search("ebb")) == ["tides@1"])
        #expect(env.entries(env.home.staging).isEmpty)
    }

    @Test func removeTakesCurrentAwayThenTheWholeFolder() async throws {
        let env = try ClientTestEnvironment()
        let b = try env.bundle(id: "tides", version: "1", words: "ebb")
        try installer(env).install(bundlePath: b.path, remote: "main", expected: expectation(b), bundled: false, trustedKeys: [env.key.publicKey])
        try installer(env).remove(remote: "main", id: "tides")
        #expect(!FileIO.exists(env.home.corpusDirectory(remote: "main", id: "tides")))
        #expect(env.entries(env.home.staging).isEmpty)
        #expect(env.home.installed().isEmpty)
        await env.expectRefusal(.notInstalled(name: "main/tides")) {
            try installer(env).remove(remote: "main", id: "tides")
        }
    }

    /// The plan counts imported corpora before downloading, but only the installer's count under
    /// the home's import lock is final: past the limit a new corpus is refused with nothing
    /// changed, while updates and bundled corpora still go in.
    @Test func theInstallerCountsImportsAgainUnderTheImportLock() async throws {
        let env = try ClientTestEnvironment()
        let tides = try env.bundle(id: "tides", version: "1", words: "ebb")
        let tides2 = try env.bundle(id: "tides", version: "2", words: "flood")
        let knots = try env.bundle(id: "knots", version: "1", words: "bowline")
        let starter = try env.bundle(id: "starter", version: "1", words: "welcome")
        let keys = [env.key.publicKey]
        try installer(env).install(bundlePath: tides.path, remote: "main", expected: expectation(tides), bundled: false,
                                   trustedKeys: keys, importLimit: 1)
        await env.expectRefusal(.importLimit(used: 1, limit: 1)) {
            try installer(env).install(bundlePath: knots.path, remote: "main", expected: expectation(knots), bundled: false,
                                       trustedKeys: keys, importLimit: 1)
        }
        #expect(env.entries(env.home.staging).isEmpty, "the refused corpus's staging folder is gone")
        try installer(env).install(bundlePath: tides2.path, remote: "main", expected: expectation(tides2), bundled: false,
                                   trustedKeys: keys, importLimit: 1)
        #expect(env.currentTarget("tides") == "versions/2")
        try installer(env).install(bundlePath: starter.path, remote: "main", expected: expectation(starter), bundled: true,
                                   trustedKeys: keys, importLimit: 1)
        #expect(env.currentTarget("starter") == "versions/1")
    }

    /// Two installs of different corpora at once under a limit of one: both would pass a count
    /// taken before either finished; with the count and the link under one lock, exactly one
    /// goes in and the other is refused.
    @Test func twoConcurrentImportsCannotBothPassTheLimit() async throws {
        let env = try ClientTestEnvironment()
        let bundles = [try env.bundle(id: "tides", version: "1", words: "ebb"), try env.bundle(id: "knots", version: "1", words: "bowline")]
        try env.home.createFolders()
        let results = Mutex([Result<String, Error>?](repeating: nil, count: bundles.count))
        let installer = installer(env), keys = [env.key.publicKey]
        let expected = bundles.map(expectation)
        let paths = bundles.map(\.path)
        DispatchQueue.concurrentPerform(iterations: bundles.count) { i in
            let outcome = Result {
                try installer.install(bundlePath: paths[i], remote: "main", expected: expected[i], bundled: false,
                                      trustedKeys: keys, importLimit: 1)
            }.map(\.id)
            results.withLock { $0[i] = outcome }
        }
        let outcomes = results.withLock { $0.map { $0! } }
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1, "\(outcomes)")
        let refusals = outcomes.compactMap { r -> SyncError? in
            if case let .failure(e) = r { return e as? SyncError } else { return nil }
        }
        #expect(refusals == [.importLimit(used: 1, limit: 1)])
        #expect(env.home.installed().count == 1)
        #expect(env.entries(env.home.staging).isEmpty)
    }
}
