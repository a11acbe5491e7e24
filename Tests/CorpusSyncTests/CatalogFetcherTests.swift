import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// security-cases.md, "Catalog and signatures", against a real loopback server.
@Suite struct CatalogFetcherTests {
    @Test func firstFetchVerifiesAndPersistsCatalogAndValidators() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        let update = try await env.fetcher().refresh(remote)
        guard case let .updated(catalog, previous) = update else { Issue.record("expected .updated, got \(update)"); return }
        #expect(catalog.version == 1 && previous == nil)
        #expect(FileManager.default.contents(atPath: env.home.acceptedCatalog("main")) == FileManager.default.contents(atPath: env.tree.root + "/catalogs/1.json"))
        #expect(FileManager.default.contents(atPath: env.home.acceptedCatalogSignature("main")) == FileManager.default.contents(atPath: env.tree.root + "/catalogs/1.json.minisig"))
        let fetch = try #require(CatalogState(home: env.home).fetchState("main"))
        #expect(fetch.url == origin.baseURL + "/catalog.json" && fetch.etag != nil)
        // No newer root exists: the walk asked for root-2 once and stopped at its 404.
        #expect(origin.requests(for: "/keys/root-2.json").count == 1)
    }

    @Test func unchangedCatalogCostsExactlyOneConditionalRequest() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)
        let before = origin.requestCount
        let snapshot = env.snapshot
        let update = try await env.fetcher().refresh(remote)
        guard case let .unchanged(catalog) = update else { Issue.record("expected .unchanged, got \(update)"); return }
        #expect(catalog.version == 1)
        #expect(origin.requestCount == before + 1)
        let last = try #require(origin.requests.last)
        #expect(last.path == "/catalog.json" && last.headers["if-none-match"] != nil)
        #expect(env.snapshot == snapshot)
    }

    @Test func newerCatalogReplacesTheAcceptedOne() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)
        try env.tree.publish(version: 2)
        let update = try await env.fetcher().refresh(remote)
        guard case let .updated(catalog, previous) = update else { Issue.record("expected .updated, got \(update)"); return }
        #expect(catalog.version == 2 && previous == 1)
        #expect(try CatalogState(home: env.home).accepted("main")?.catalog.version == 2)
    }

    @Test func catalogSignedByAnUnknownKeyIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let stranger = try SecretKey.generate()
        try env.tree.publish(version: 1, signer: stranger)
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.untrustedKey(keyID: stranger.keyID.description)) { try await env.fetcher().refresh(remote) }
    }

    @Test func catalogWithoutSignatureIsRefused() async throws {
        let env = try SyncTestEnvironment()
        try env.tree.publish(version: 1, signed: false)
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.signatureMissing(file: "catalogs/1.json")) { try await env.fetcher().refresh(remote) }
    }

    @Test func catalogWhoseSignatureDoesNotMatchItsBytesIsRefused() async throws {
        let env = try SyncTestEnvironment()
        // Keep the signature of version 1, change one byte of the catalog.
        let path = env.tree.root + "/catalogs/1.json"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.signatureInvalid(what: "the signed file")) { try await env.fetcher().refresh(remote) }
    }

    @Test func olderCatalogIsRefusedAsRollback() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        try env.tree.publish(version: 2)
        try env.tree.publish(version: 3)
        _ = try await env.fetcher().refresh(remote)
        // The server (or a mirror replaying old files) points back at version 2, still validly signed.
        try env.tree.pointTo(version: 2)
        await env.expectRefusal(.rollback(from: 3, to: 2)) { try await env.fetcher().refresh(remote) }
    }

    @Test func sameVersionWithOtherContentIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let remote = try env.remote(try env.server())
        _ = try await env.fetcher().refresh(remote)
        try env.tree.publish(version: 1, corpora: [env.tree.entry(id: "other-guide")])
        // The pointer did not change, so the origin answers 304; another server of the same tree
        // (no validators for its URL) hands over the re-signed version 1.
        let replay = try Remote(name: "main", url: try env.server().baseURL, rootKey: env.tree.pinnedKey)
        await env.expectRefusal(.catalogConflict(version: 1)) { try await env.fetcher().refresh(replay) }
    }

    @Test func pointerNamingAnotherVersionThanTheSignedCatalogIsRefused() async throws {
        let env = try SyncTestEnvironment()
        try env.tree.publish(version: 2)
        // catalogs/3.json holds the signed version 2.
        try FileManager.default.copyItem(atPath: env.tree.root + "/catalogs/2.json", toPath: env.tree.root + "/catalogs/3.json")
        try FileManager.default.copyItem(atPath: env.tree.root + "/catalogs/2.json.minisig", toPath: env.tree.root + "/catalogs/3.json.minisig")
        try env.tree.pointTo(version: 3)
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.catalogMismatch(reason: "catalogs/3.json holds version 2, the pointer says 3")) {
            try await env.fetcher().refresh(remote)
        }
    }

    @Test func expiredCatalogIsRefusedSayingWhen() async throws {
        let env = try SyncTestEnvironment()
        let expiry = Date().addingTimeInterval(-3600)
        try env.tree.publish(version: 1, expires: expiry)
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.expired(at: Timestamp.format(expiry))) { try await env.fetcher().refresh(remote) }
    }

    @Test func frozenServerAnswering304CannotKeepAnExpiredCatalogAlive() async throws {
        let env = try SyncTestEnvironment()
        let expiry = Date().addingTimeInterval(3600)
        try env.tree.publish(version: 1, expires: expiry)
        let origin = try env.server()
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)
        let later = env.fetcher(now: expiry.addingTimeInterval(60))
        let before = origin.requestCount
        await env.expectRefusal(.expired(at: Timestamp.format(expiry))) { try await later.refresh(remote) }
        #expect(origin.requestCount == before + 1)
    }

    @Test func rotatedRootIsAcceptedAndTheOldKeyThenRefused() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)

        try env.tree.rotateRoot()
        try env.tree.publish(version: 2)
        let update = try await env.fetcher().refresh(remote)
        #expect(update.catalog.version == 2 && update.catalog.rootVersion == 2)
        #expect(FileManager.default.contents(atPath: env.home.trust("main") + "/root-2.json")
                == FileManager.default.contents(atPath: env.tree.root + "/keys/root-2.json"))
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).catalogKeys == [env.tree.rootKeys[1].publicKey])

        // A new catalog signed by the retired root-1 key (naming root 1) is refused.
        let old = env.tree.rootKeys[0]
        try env.tree.publish(version: 3, signer: old, rootVersion: 1)
        await env.expectRefusal(.untrustedKey(keyID: old.keyID.description)) { try await env.fetcher().refresh(remote) }
    }

    @Test func freshClientFollowsTheChainButRefusesACatalogSignedByAnOlderRoot() async throws {
        let env = try SyncTestEnvironment()
        try env.tree.rotateRoot()
        let old = env.tree.rootKeys[0]
        try env.tree.publish(version: 1, signer: old, rootVersion: 1)
        let remote = try env.remote(try env.server())
        // The valid root 2 it walked is kept (TUF §5.3.8); nothing else changes.
        await env.expectRefusal(.untrustedKey(keyID: old.keyID.description), keeping: ["trust/main/root-2.json", "trust/main/root-2.json.minisig"],
                                home: env.home.root) { try await env.fetcher().refresh(remote) }
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == 2)
    }

    @Test func rootDocumentNotSignedByThePreviousRootIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let intruder = try SecretKey.generate()
        try env.tree.writeRootDocument(version: 2, key: intruder.publicKey, signer: intruder)
        try env.tree.publish(version: 1, signer: intruder, rootVersion: 2)
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.untrustedKey(keyID: intruder.keyID.description)) { try await env.fetcher().refresh(remote) }
    }

    @Test(arguments: ["../x", "/abs", "a\\b", "nul\u{0}id", String(repeating: "a", count: 65), "UPPER"])
    func fishyCorpusIdInASignedCatalogIsRejected(id: String) async throws {
        let env = try SyncTestEnvironment()
        try env.tree.publish(version: 1, corpora: [env.tree.entry(id: id)])
        let remote = try env.remote(try env.server())
        let before = env.snapshot
        do {
            _ = try await env.fetcher().refresh(remote)
            Issue.record("expected a refusal")
        } catch let SyncError.malformed(what, reason) {
            #expect(what == "corpus id" && reason.contains("is not a valid id"))
        }
        #expect(env.snapshot == before)
        #expect(!FileManager.default.fileExists(atPath: env.home.state("main")))
    }

    @Test(arguments: ["../../etc/passwd", "/bundles/x.corpus.zip", "bundles\\x", "bundles/.hidden"])
    func fishyBundlePathInASignedCatalogIsRejected(path: String) async throws {
        let env = try SyncTestEnvironment()
        var ref = env.tree.bundleRef
        ref.path = path
        try env.tree.publish(version: 1, corpora: [env.tree.entry(bundle: ref)])
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.malformed(what: "catalog", reason: "unsafe bundle reference for sea-guide")) {
            try await env.fetcher().refresh(remote)
        }
    }

    @Test func originDownFallsBackToAMirrorWhichGetsTheSameChecks() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server { _ in .status(503) }
        let mirror = try env.server()
        let remote = try env.remote(origin, mirrors: [mirror])
        let update = try await env.fetcher().refresh(remote)
        #expect(update.catalog.version == 1)
        #expect(origin.requestCount == 2) // two attempts, then failover
        // An untrusted mirror replaying an unsigned catalog is refused like the origin would be.
        let env2 = try SyncTestEnvironment()
        try env2.tree.publish(version: 1, signed: false)
        let down = try env2.server { _ in .status(503) }
        let badMirror = try env2.server()
        let remote2 = try env2.remote(down, mirrors: [badMirror])
        await env2.expectRefusal(.signatureMissing(file: "catalogs/1.json")) { try await env2.fetcher().refresh(remote2) }
    }

    @Test func unreachableRemoteIsANetworkErrorAfterEveryAttempt() async throws {
        let env = try SyncTestEnvironment()
        let refusing = RefusingLoopbackPort()
        let remote = try Remote(name: "main", url: "http://127.0.0.1:\(refusing.port)", rootKey: env.tree.pinnedKey)
        let before = env.snapshot
        do {
            _ = try await env.fetcher().refresh(remote)
            Issue.record("expected a network error")
        } catch let SyncError.network(after, last) {
            #expect(after == 2)
            guard case .network = last else { Issue.record("expected a connection failure, got \(last)"); return }
        }
        #expect(env.snapshot == before)
        withExtendedLifetime(refusing) {}
    }
}
