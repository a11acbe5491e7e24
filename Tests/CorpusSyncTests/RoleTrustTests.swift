import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// Roots with roles and thresholds, the freshness document and recovery from stolen online keys,
/// as the client meets them in a served tree (docs/format.md "Root document", "Timestamp").
@Suite struct RoleTrustTests {
    /// A single-key tree (root 1, catalog 1 accepted by the client) upgraded in place: root 2 in
    /// format 2, 2 of 3 root keys, signed by root 1's key and `signers` (default: the first two of
    /// its own root keys); catalog 2 signed by the catalog key; timestamp 1 naming it.
    struct Migrated {
        let env: SyncTestEnvironment
        let remote: Remote
        let roles: StaticTreeFixture.Roles
        let rootBytes: Data
    }

    func migrated(signers: ((StaticTreeFixture.Roles, SecretKey) -> [SecretKey])? = nil, acceptFirst: Bool = true) async throws -> Migrated {
        let env = try SyncTestEnvironment()
        let remote = try env.remote(try env.server())
        if acceptFirst { _ = try await env.fetcher().refresh(remote) }
        let roles = try StaticTreeFixture.Roles.generate(rootKeys: 3, threshold: 2)
        let old = env.tree.rootKeys[0]
        let bytes = try env.tree.writeRoleRoot(version: 2, roles: roles, signers: signers?(roles, old) ?? [old, roles.root[0], roles.root[1]])
        try env.tree.publish(version: 2, signer: roles.catalog[0], rootVersion: 2)
        try env.tree.writeTimestamp(version: 1, catalogVersion: 2, signer: roles.timestamp[0])
        return Migrated(env: env, remote: remote, roles: roles, rootBytes: bytes)
    }

    @Test func aSingleKeyTreeMigratedToRolesIsFollowed() async throws {
        let m = try await migrated()
        let update = try await m.env.fetcher().refresh(m.remote)
        #expect(update.catalog.version == 2)
        let root = try TrustStore(home: m.env.home).currentRoot(for: m.remote)
        #expect(root.version == 2 && root.roles.format == 2)
        #expect(root.catalogKeys == [m.roles.catalog[0].publicKey])
        // The root and its counted signatures are kept, and the timestamp beside the catalog.
        let trust = m.env.home.trust("main")
        for signer in [m.env.tree.rootKeys[0], m.roles.root[0], m.roles.root[1]] {
            #expect(FileIO.exists("\(trust)/root-2.json.\(signer.keyID).minisig"))
        }
        #expect(try CatalogState(home: m.env.home).acceptedTimestamp("main")?.document.version == 1)
    }

    @Test func aRootBelowItsOwnThresholdIsRefusedAndNothingChanges() async throws {
        let m = try await migrated(signers: { roles, old in [old, roles.root[0]] })
        let missing = [m.roles.root[1], m.roles.root[2]].map(\.keyID.description).joined(separator: ", ")
        await m.env.expectRefusal(.rootNotTrusted(file: "keys/root-2.json", reason: "1 of root 2's root keys signed it, 2 needed (not signed by \(missing))")) {
            try await m.env.fetcher().refresh(m.remote)
        }
        #expect(try TrustStore(home: m.env.home).currentRoot(for: m.remote).version == 1)
    }

    @Test func aRootWithoutThePreviousRootsSignatureIsRefused() async throws {
        let m = try await migrated(signers: { roles, _ in roles.root })
        let old = m.env.tree.rootKeys[0].keyID
        await m.env.expectRefusal(.rootNotTrusted(file: "keys/root-2.json", reason: "0 of root 1's root keys signed it, 1 needed (not signed by \(old))")) {
            try await m.env.fetcher().refresh(m.remote)
        }
    }

    @Test func oneKeysSignatureCopiedUnderAnotherKeysNameCountsOnce() async throws {
        let m = try await migrated(signers: { roles, old in [old, roles.root[0]] })
        let a = m.roles.root[0].keyID, b = m.roles.root[1].keyID
        let own = try String(contentsOfFile: m.env.tree.directory.url(TreeLayout.rootSignaturePath(version: 2, signer: a)), encoding: .utf8)
        try m.env.tree.directory.write(TreeLayout.rootSignaturePath(version: 2, signer: b), own)
        let missing = [b, m.roles.root[2].keyID].map(\.description).joined(separator: ", ")
        await m.env.expectRefusal(.rootNotTrusted(file: "keys/root-2.json", reason: "1 of root 2's root keys signed it, 2 needed (not signed by \(missing))")) {
            try await m.env.fetcher().refresh(m.remote)
        }
    }

    @Test func anExpiredTimestampIsRefusedAsAFreeze() async throws {
        let m = try await migrated()
        _ = try await m.env.fetcher().refresh(m.remote)
        let past = Date().addingTimeInterval(-60)
        try m.env.tree.writeTimestamp(version: 2, catalogVersion: 2, signer: m.roles.timestamp[0], expires: past)
        await m.env.expectRefusal(.timestampExpired(at: Timestamp.format(past))) { try await m.env.fetcher().refresh(m.remote) }
    }

    @Test func aRolesTreeWithoutItsTimestampIsRefused() async throws {
        let m = try await migrated()
        try FileManager.default.removeItem(atPath: m.env.tree.directory.url(TreeLayout.timestamp))
        await m.env.expectRefusal(.timestampMissing(file: "timestamp.json"), keeping: ["trust/main/root-2.json"] + m.signatureFiles,
                                  home: m.env.home.root) { try await m.env.fetcher().refresh(m.remote) }
    }

    @Test func anOlderTimestampIsRefused() async throws {
        let m = try await migrated()
        try m.env.tree.writeTimestamp(version: 5, catalogVersion: 2, signer: m.roles.timestamp[0])
        _ = try await m.env.fetcher().refresh(m.remote)
        try m.env.tree.writeTimestamp(version: 4, catalogVersion: 2, signer: m.roles.timestamp[0])
        await m.env.expectRefusal(.timestampRollback(from: 5, to: 4)) { try await m.env.fetcher().refresh(m.remote) }
    }

    @Test func aTimestampNotSignedByATimestampKeyIsRefused() async throws {
        let m = try await migrated()
        // The catalog key is online too, but it does not hold the timestamp role.
        try m.env.tree.writeTimestamp(version: 1, catalogVersion: 2, signer: m.roles.catalog[0])
        await m.env.expectRefusal(.untrustedKey(keyID: m.roles.catalog[0].keyID.description), keeping: ["trust/main/root-2.json"] + m.signatureFiles,
                                  home: m.env.home.root) { try await m.env.fetcher().refresh(m.remote) }
    }

    @Test func aCatalogOtherThanTheTimestampNamesIsRefused() async throws {
        let m = try await migrated()
        // One byte of the catalog changes after the timestamp vouched for it (same size).
        let path = m.env.tree.directory.url("catalogs/2.json")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let named = SHA256.digest(bytes)
        bytes[bytes.startIndex + 10] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        await m.env.expectRefusal(.hashMismatch(file: "catalogs/2.json", expected: named.hex, actual: SHA256.digest(bytes).hex),
                                  keeping: ["trust/main/root-2.json"] + m.signatureFiles, home: m.env.home.root) {
            try await m.env.fetcher().refresh(m.remote)
        }
    }

    /// TUF's fast-forward attack and its recovery: stolen online keys sign versions far ahead;
    /// after the root holders rotate both online keys, the publisher's lower versions are accepted
    /// and the thief's are refused.
    @Test func afterStolenOnlineKeysAreRotatedThePublisherWinsAndTheThiefIsRefused() async throws {
        let m = try await migrated()
        _ = try await m.env.fetcher().refresh(m.remote)
        let tree = m.env.tree

        // The thief, with the catalog and timestamp keys, serves catalog 100 and timestamp 100.
        try tree.publish(version: 100, signer: m.roles.catalog[0], rootVersion: 2)
        try tree.writeTimestamp(version: 100, catalogVersion: 100, signer: m.roles.timestamp[0])
        #expect(try await m.env.fetcher().refresh(m.remote).catalog.version == 100)

        // The root holders rotate both online keys (2 of 3 root keys sign root 3) ...
        var next = m.roles
        next.catalog = [try SecretKey.generate()]
        next.timestamp = [try SecretKey.generate()]
        try tree.writeRoleRoot(version: 3, roles: next, signers: [m.roles.root[1], m.roles.root[2]])
        // ... and the publisher goes on from its own numbers, below the thief's.
        try tree.publish(version: 3, signer: next.catalog[0], rootVersion: 3)
        try tree.writeTimestamp(version: 2, catalogVersion: 3, signer: next.timestamp[0])
        #expect(try await m.env.fetcher().refresh(m.remote).catalog.version == 3)

        // The thief's next attempt with the revoked keys is refused, whatever its numbers.
        try tree.publish(version: 101, signer: m.roles.catalog[0], rootVersion: 2)
        try tree.writeTimestamp(version: 101, catalogVersion: 101, signer: m.roles.timestamp[0])
        await m.env.expectRefusal(.untrustedKey(keyID: m.roles.timestamp[0].keyID.description)) { try await m.env.fetcher().refresh(m.remote) }
    }

    /// The floors are reset only for documents signed by a key the new root revoked: without a
    /// rotation, the thief's high numbers still stand and the publisher's lower ones are refused.
    @Test func withoutARotationTheThiefsFloorsStand() async throws {
        let m = try await migrated()
        _ = try await m.env.fetcher().refresh(m.remote)
        try m.env.tree.publish(version: 100, signer: m.roles.catalog[0], rootVersion: 2)
        try m.env.tree.writeTimestamp(version: 100, catalogVersion: 100, signer: m.roles.timestamp[0])
        _ = try await m.env.fetcher().refresh(m.remote)
        try m.env.tree.publish(version: 3, signer: m.roles.catalog[0], rootVersion: 2)
        try m.env.tree.writeTimestamp(version: 101, catalogVersion: 3, signer: m.roles.timestamp[0])
        await m.env.expectRefusal(.rollback(from: 100, to: 3)) { try await m.env.fetcher().refresh(m.remote) }
        try m.env.tree.writeTimestamp(version: 2, catalogVersion: 3, signer: m.roles.timestamp[0])
        await m.env.expectRefusal(.timestampRollback(from: 100, to: 2)) { try await m.env.fetcher().refresh(m.remote) }
    }

    @Test func anExpiredNewestRootIsRefusedAndKept() async throws {
        let env = try SyncTestEnvironment()
        let remote = try env.remote(try env.server())
        let roles = try StaticTreeFixture.Roles.generate(rootKeys: 1, threshold: 1)
        let past = Date().addingTimeInterval(-3600)
        try env.tree.writeRoleRoot(version: 2, roles: roles, signers: [env.tree.rootKeys[0], roles.root[0]], expires: past)
        try env.tree.publish(version: 2, signer: roles.catalog[0], rootVersion: 2)
        try env.tree.writeTimestamp(version: 1, catalogVersion: 2, signer: roles.timestamp[0])
        let kept = ["trust/main/root-2.json"] + [env.tree.rootKeys[0], roles.root[0]].map { "trust/main/root-2.json.\($0.keyID).minisig" }
        await env.expectRefusal(.rootExpired(version: 2, at: Timestamp.format(past)), keeping: kept, home: env.home.root) {
            try await env.fetcher().refresh(remote)
        }
    }

    @Test func aRootInANewerFormatSaysToUpdateTheClient() async throws {
        let env = try SyncTestEnvironment()
        let remote = try env.remote(try env.server())
        try env.tree.directory.write(TreeLayout.rootKeyPath(version: 2), #"{"format":3,"version":2}"#)
        await env.expectRefusal(.unsupportedFormat(what: "keys/root-2.json",
                                                   reason: "root document format 3; this client reads formats 1 to 2: update the client")) {
            try await env.fetcher().refresh(remote)
        }
    }

    @Test func oneRefreshWalksAtMost32RootsAndTheNextGoesOn() async throws {
        let env = try SyncTestEnvironment()
        let remote = try env.remote(try env.server())
        for _ in 0..<40 { try env.tree.rotateRoot() }
        try env.tree.publish(version: 2)
        let newest = env.tree.rootKeys.last!.keyID.description
        // Roots 2…33 are walked and kept; the catalog is signed by root 41's key, not yet reached.
        let kept = (2...33).flatMap { ["trust/main/root-\($0).json", "trust/main/root-\($0).json.minisig"] }
        await env.expectRefusal(.untrustedKey(keyID: newest), keeping: kept, home: env.home.root) { try await env.fetcher().refresh(remote) }
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == 33)
        #expect(try await env.fetcher().refresh(remote).catalog.version == 2)
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == 41)
    }

    @Test func aRemotePinnedToARootDocumentStartsThere() async throws {
        let m = try await migrated(acceptFirst: false)
        var remote = m.remote
        try remote.pin(rootDocument: m.rootBytes)
        #expect(try remote.pinnedRoot().version == 2)
        #expect(try await m.env.fetcher().refresh(remote).catalog.version == 2)
        // Nothing before root 2 was fetched or stored: the pin is the chain's start.
        #expect(!FileIO.exists("\(m.env.home.trust("main"))/root-2.json"))
    }
}

extension RoleTrustTests.Migrated {
    /// The home-relative signature files of root 2 the client keeps.
    var signatureFiles: [String] {
        [env.tree.rootKeys[0], roles.root[0], roles.root[1]].map { "trust/main/root-2.json.\($0.keyID).minisig" }
    }
}
