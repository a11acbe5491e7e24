import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Publishing under keys by role: the single-key tree signs its timestamp with its one key and
/// says what that costs; a tree with roles takes catalog and timestamp keys only for their roles.
@Suite struct RoleKeyPublishTests {
    /// A catalog folder with one corpus, and keys for every role: three root keys (2 of 3), one
    /// catalog key, one timestamp key, each also on disk as a `.pub` for `minisign`.
    final class Fixture: PublishFolder {
        let roots: [SecretKey]
        let catalogKey: SecretKey
        let timestampKey: SecretKey

        init() throws {
            roots = try (0..<3).map { _ in try SecretKey.generate() }
            catalogKey = try SecretKey.generate()
            timestampKey = try SecretKey.generate()
            try super.init("role-keys")
            try dir.write("catalog/catalog.json", #"{"id": "roles", "title": "Roles", "corpora": [{"id": "tides", "version": "1", "source": "tides", "access": "free"}]}"#)
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
            for (name, k) in [("root", key), ("catalog", catalogKey), ("timestamp", timestampKey)] + roots.enumerated().map({ ("holder\($0)", $1) }) {
                try dir.write("pubs/\(name).pub", k.publicKey.fileText)
            }
        }

        func pub(_ name: String) -> String { dir.url("pubs/\(name).pub") }

        func publish(key: SecretKey? = nil, timestampKey: SecretKey? = nil, now: Date = Date()) throws -> PublishSummary {
            try TreePublisher.publish(catalogDirectory: catalog, output: tree, key: key ?? self.key, timestampKey: timestampKey, now: now)
        }

        /// Root 1 of a new tree with roles, signed by two of its three root keys and installed.
        func ceremony(expiresIn: TimeInterval = RootCeremony.defaultExpiry, now: Date = Date()) throws {
            let draft = dir.url("ceremony/root-1.json")
            try FileIO.createDirectory(dir.url("ceremony"))
            _ = try RootCeremony.draft(from: nil, root: .init(keys: roots.map(\.publicKey), threshold: 2),
                                       catalog: .init(keys: [catalogKey.publicKey], threshold: 1),
                                       timestamp: .init(keys: [timestampKey.publicKey], threshold: 1), expiresIn: expiresIn, now: now, out: draft)
            for k in roots.prefix(2) { _ = try RootCeremony.sign(draft: draft, key: k) }
            _ = try RootCeremony.publish(draft: draft, tree: tree, now: now)
        }

        func timestamp() throws -> TimestampDocument { try TimestampDocument.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree)/timestamp.json"))) }
    }

    @Test func aSingleKeyPublishSignsTheTimestampWithItsKeyAndWarnsOnce() throws {
        let f = try Fixture()
        let first = try f.publish()
        #expect(first.notices == [.oneKeyHoldsEveryRole(keyID: f.key.keyID.description)])
        let check = try PublisherFixtures.minisignVerify("\(f.tree)/timestamp.json", publicKey: f.pub("root"))
        #expect(check.status == 0, "\(check.stderr)")
        let doc = try f.timestamp()
        #expect(first.timestamp == doc)
        #expect(doc.version == 1)
        let (digest, size) = try SHA256.hash(fileAt: "\(f.tree)/catalogs/1.json")
        #expect(doc.catalog == .init(id: "roles", version: 1, path: "catalogs/1.json", digest: SHA256Digest(bytes: digest), size: size))
        #expect(check.stdout.contains("Trusted comment: \(doc.trustedComment)"))

        let second = try f.publish()
        #expect(second.timestamp?.version == 2)
        #expect(try f.timestamp().catalog.version == 2)
        #expect(second.notices.count == 1)
    }

    @Test func aTimestampRunNamesThePointersCatalogAndCountsUp() throws {
        let f = try Fixture()
        _ = try f.publish()
        let now = Date().addingTimeInterval(60)
        let renewed = try TimestampWriter.renew(tree: f.tree, key: f.key, expiresIn: 6 * 3600, now: now)
        #expect(renewed.version == 2)
        #expect(renewed.catalog.version == 1)
        #expect(renewed.expires == Timestamp.format(now.addingTimeInterval(6 * 3600)))
        #expect(try f.timestamp() == renewed)
        #expect(try PublisherFixtures.minisignVerify("\(f.tree)/timestamp.json", publicKey: f.pub("root")).status == 0)
    }

    @Test func aTreeWithRolesPublishesWithTheCatalogKeyAloneAndSaysTheTimestampWaits() throws {
        let f = try Fixture()
        try f.ceremony()
        let summary = try f.publish(key: f.catalogKey)
        #expect(summary.timestamp == nil)
        #expect(summary.notices == [.timestampNotUpdated(rootVersion: 1, timestampKeys: [f.timestampKey.keyID.description])])
        #expect(summary.catalog.rootVersion == 1)
        #expect(!FileIO.exists("\(f.tree)/timestamp.json"))
        #expect(!FileIO.exists("\(f.tree)/keys/root.pub"))
        #expect(try PublisherFixtures.minisignVerify("\(f.tree)/catalogs/1.json", publicKey: f.pub("catalog")).status == 0)

        let signed = try f.publish(key: f.catalogKey, timestampKey: f.timestampKey)
        #expect(signed.notices.isEmpty)
        #expect(signed.timestamp?.catalog.version == 2)
        #expect(try PublisherFixtures.minisignVerify("\(f.tree)/timestamp.json", publicKey: f.pub("timestamp")).status == 0)

        let renewed = try TimestampWriter.renew(tree: f.tree, key: f.timestampKey)
        #expect(renewed.version == 2 && renewed.catalog.version == 2)
    }

    @Test func aRootKeyIsRefusedForCatalogsNamingTheCatalogKeys() throws {
        let f = try Fixture()
        try f.ceremony()
        _ = try f.publish(key: f.catalogKey, timestampKey: f.timestampKey)
        for key in [f.roots[0], f.timestampKey, f.key] {
            let r = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try f.publish(key: key) }
            #expect(r.error as? PublisherError == .keyNotInRole(given: key.keyID.description, role: .catalog,
                                                                allowed: [f.catalogKey.keyID.description], rootVersion: 1))
            #expect(r.unchanged)
        }
    }

    @Test func aTimestampKeyOutsideItsRoleIsRefused() throws {
        let f = try Fixture()
        try f.ceremony()
        _ = try f.publish(key: f.catalogKey, timestampKey: f.timestampKey)
        let expected = PublisherError.keyNotInRole(given: f.catalogKey.keyID.description, role: .timestamp,
                                                   allowed: [f.timestampKey.keyID.description], rootVersion: 1)
        let publish = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try f.publish(key: f.catalogKey, timestampKey: f.catalogKey) }
        #expect(publish.error as? PublisherError == expected)
        #expect(publish.unchanged)
        let renew = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try TimestampWriter.renew(tree: f.tree, key: f.catalogKey) }
        #expect(renew.error as? PublisherError == expected)
        #expect(renew.unchanged)
    }

    @Test func aSingleKeyTreeTakesNoOtherTimestampKey() throws {
        let f = try Fixture()
        let other = f.timestampKey
        let fresh = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try f.publish(timestampKey: other) }
        #expect(fresh.error as? PublisherError == .keyNotCurrentRoot(given: other.keyID.description, current: f.key.keyID.description, rootVersion: 1))
        #expect(fresh.unchanged)
        _ = try f.publish()
        let later = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try TimestampWriter.renew(tree: f.tree, key: other) }
        #expect(later.error as? PublisherError == .keyNotCurrentRoot(given: other.keyID.description, current: f.key.keyID.description, rootVersion: 1))
        #expect(later.unchanged)
    }

    @Test func aRootThatExpiresWithinThirtyDaysIsNamedInTheSummary() throws {
        let f = try Fixture()
        let start = Date()
        try f.ceremony(expiresIn: 40 * 86400, now: start)
        #expect(try f.publish(key: f.catalogKey, timestampKey: f.timestampKey, now: start).notices.isEmpty)
        let late = start.addingTimeInterval(20 * 86400)
        let expires = Timestamp.format(start.addingTimeInterval(40 * 86400))
        #expect(try f.publish(key: f.catalogKey, timestampKey: f.timestampKey, now: late).notices == [.rootExpiresSoon(version: 1, expires: expires)])
        let past = start.addingTimeInterval(41 * 86400)
        #expect(try f.publish(key: f.catalogKey, timestampKey: f.timestampKey, now: past).notices == [.rootExpired(version: 1, expires: expires)])
    }

    @Test func rotateKeyRefusesATreeWithRolesNamingTheCeremony() throws {
        let f = try Fixture()
        try f.ceremony()
        let r = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try RootKeyChain.rotate(tree: f.tree, currentKey: f.roots[0], newKey: f.roots[1]) }
        #expect(r.error as? PublisherError == .rotationNeedsCeremony(rootVersion: 1))
        #expect(r.unchanged)
    }

    @Test func aTimestampRunOverACatalogOfARevokedKeyIsRefused() throws {
        let f = try Fixture()
        _ = try f.publish()
        // Migrate: root 2 with roles, signed by the single key and two of its own root keys.
        let draft = f.dir.url("root-2.json")
        _ = try RootCeremony.draft(from: f.tree, root: .init(keys: f.roots.map(\.publicKey), threshold: 2),
                                   catalog: .init(keys: [f.catalogKey.publicKey], threshold: 1),
                                   timestamp: .init(keys: [f.timestampKey.publicKey], threshold: 1), out: draft)
        for k in [f.key, f.roots[1], f.roots[2]] { _ = try RootCeremony.sign(draft: draft, key: k) }
        _ = try RootCeremony.publish(draft: draft, tree: f.tree)
        let r = DirectorySnapshot.attempt(leaving: f.dir.path) { _ = try TimestampWriter.renew(tree: f.tree, key: f.timestampKey) }
        #expect(r.error as? PublisherError == .catalogSignerRevoked(catalogVersion: 1, keyID: f.key.keyID.description, rootVersion: 2))
        #expect(r.unchanged)
        // The next publish with the new catalog key is what puts the tree right.
        let summary = try f.publish(key: f.catalogKey, timestampKey: f.timestampKey)
        #expect(summary.catalog.rootVersion == 2 && summary.notices.isEmpty)
        #expect(try TimestampWriter.renew(tree: f.tree, key: f.timestampKey).version == 3)
    }
}
