import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The upload of a new catalog version cut off at six points (a relay in front of SeaweedFS
/// closes every connection from its N-th request on, as a dying network or a killed `corpusd`
/// would leave it). After each cut the bucket still answers anonymous readers, a client that had
/// the old version syncs to the old or the new one and verifies, a new client installs from it,
/// and running the upload again completes it.
@Suite(.serialized) struct KilledUploadTests {
    struct Trees {
        let f: ObjectStoreFixture
        let v1: TempDirectory
    }

    /// Version 1: tides 1 and the entitled atlas; version 2: tides 2 (new bundle), atlas, and reef.
    func publishTwoVersions() throws -> Trees {
        let f = try ObjectStoreFixture()
        try f.work.write("catalog/tides/a.md", "# Tides\n\nSpring tides follow the full moon.\n")
        try f.work.write("catalog/atlas/a.md", "# Atlas\n\nEvery chart of the northern coast.\n")
        try f.work.write("catalog/reef/a.md", "# Reef\n\nCoral grows slowly in warm water.\n")
        try f.writeCatalog([["id": "tides", "version": "1", "source": "tides", "access": "free"],
                            ["id": "atlas", "version": "1", "source": "atlas", "access": "entitled", "tier": "gold"]])
        let first = try f.publish()
        #expect(first.status == 0, "\(first.stderr)")
        let v1 = TempDirectory("tree-v1")
        _ = try ProcessRunner.run("/bin/cp", ["-a", f.tree + "/.", v1.path])
        try f.work.write("catalog/tides/a.md", "# Tides\n\nSpring tides follow the full and the new moon.\n")
        try f.writeCatalog([["id": "tides", "version": "2", "source": "tides", "access": "free"],
                            ["id": "atlas", "version": "1", "source": "atlas", "access": "entitled", "tier": "gold"],
                            ["id": "reef", "version": "1", "source": "reef", "access": "free"]])
        let second = try f.publish()
        #expect(second.status == 0, "\(second.stderr)")
        return Trees(f: f, v1: v1)
    }

    func upload(_ f: ObjectStoreFixture, tree: String, prefix: String, endpoint: String? = nil) throws -> ProcessResult {
        try f.corpusd(["upload", tree] + f.uploadOptions(endpoint: endpoint, prefix: prefix))
    }

    func installedVersion(_ client: IntegrationClient, _ id: String) throws -> String? {
        let list = try client.json(["list"]).object["installed"] as? [[String: Any]] ?? []
        return list.first { $0["id"] as? String == id }?["version"] as? String
    }

    /// The catalog version a client takes from the bucket: the one `timestamp.json` names (uploaded
    /// just before the pointer, and what a client follows once it is there), else the pointer's.
    func bucketServedVersion(_ f: ObjectStoreFixture, prefix: String) throws -> Int? {
        let r = try ProcessRunner.run("curl", ["-s", "-f", "\(f.store.endpoint)/\(ObjectStoreFixture.bucket)/\(prefix)/timestamp.json"])
        if r.status == 0 { return try TimestampDocument.decode(r.stdoutData).catalog.version }
        return try bucketPointerVersion(f, prefix: prefix)
    }

    func bucketPointerVersion(_ f: ObjectStoreFixture, prefix: String) throws -> Int? {
        let r = try ProcessRunner.run("curl", ["-s", "-f", "\(f.store.endpoint)/\(ObjectStoreFixture.bucket)/\(prefix)/catalog.json"])
        guard r.status == 0 else { return nil }
        return try JSONDecoder().decode(CatalogPointer.self, from: r.stdoutData).version
    }

    @Test func anUploadCutAtSixPointsNeverLeavesABucketAClientRefusesOrInstallsWronglyFrom() throws {
        let t = try publishTwoVersions()
        let f = t.f

        // A whole upload of version 2 over version 1, through the relay, to learn its requests and their order.
        #expect(try upload(f, tree: t.v1.path, prefix: "tree/dry").status == 0)
        let recorder = try RelayProxy(upstreamPort: f.store.s3Port)
        let dry = try upload(f, tree: f.tree, prefix: "tree/dry", endpoint: recorder.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = recorder.requestLines
        recorder.stop()
        let puts = lines.enumerated().filter { $0.element.hasPrefix("PUT ") }
        let pointer = try #require(puts.last { $0.element.hasSuffix("/tree/dry/catalog.json") }).offset
        #expect(puts.last?.offset == pointer, "the pointer is the last object written: \(lines)")
        let lastContent = try #require(puts.last { $0.element.contains("/bundles/") }).offset
        let firstCatalog = try #require(puts.first { $0.element.contains("/catalogs/") }).offset
        #expect(lastContent < firstCatalog && firstCatalog < pointer, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("PUT ") && $0.contains("/tree/dry/bundles/") && lines.firstIndex(of: $0)! > pointer })

        // Cut before the first request, inside the bundles, between bundles and catalogs, inside
        // the catalogs, at the pointer itself, and after it (while old objects are listed).
        let cuts = Array(Set([1, puts.first!.offset + 1, lastContent + 1, firstCatalog + 1, firstCatalog + 2, pointer + 1, pointer + 2]))
            .filter { $0 <= lines.count }.sorted()
        #expect(cuts.count >= 6, "\(cuts) of \(lines.count) requests")
        for cut in cuts {
            let prefix = "tree/cut-\(cut)"
            #expect(try upload(f, tree: t.v1.path, prefix: prefix).status == 0)
            let url = "\(f.store.endpoint)/\(ObjectStoreFixture.bucket)/\(prefix)"
            let old = IntegrationClient("old-\(cut)")
            try old.must(["remote", "add", "hosted", url, "--trust", f.rootPub])
            try old.must(["install", "tides"])

            let relay = try RelayProxy(upstreamPort: f.store.s3Port, cutAtRequest: cut)
            let cutOff = try upload(f, tree: f.tree, prefix: prefix, endpoint: relay.url)
            relay.stop()
            #expect(relay.didCut)
            #expect(cutOff.status == 5, "cut at \(cut): \(cutOff.status) \(cutOff.stderr)")
            #expect(cutOff.stderr.contains("object-store-unavailable") || cutOff.stderr.contains("failed"), "\(cutOff.stderr)")
            #expect(!cutOff.stderr.contains(f.store.secretKey))

            // Readable, and consistent with whichever catalog it offers.
            _ = try #require(try bucketPointerVersion(f, prefix: prefix), "cut at \(cut): the pointer is gone")
            let version = try #require(try bucketServedVersion(f, prefix: prefix))
            #expect(version == 1 || version == 2)
            let synced = try old.run(["sync"])
            #expect(synced.status == 0, "cut at \(cut): \(synced.stderr)")
            #expect(try installedVersion(old, "tides") == (version == 2 ? "2" : "1"), "cut at \(cut)")
            #expect(try old.run(["verify"]).status == 0)
            let fresh = IntegrationClient("fresh-\(cut)")
            try fresh.must(["remote", "add", "hosted", url, "--trust", f.rootPub])
            let install = try fresh.run(["install", "tides"])
            #expect(install.status == 0, "cut at \(cut): \(install.stderr)")
            #expect(try installedVersion(fresh, "tides") == (version == 2 ? "2" : "1"))

            // Running the upload again finishes it.
            let again = try upload(f, tree: f.tree, prefix: prefix)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try bucketPointerVersion(f, prefix: prefix) == 2)
            try old.must(["sync"])
            #expect(try installedVersion(old, "tides") == "2")
            try fresh.must(["install", "reef"])
        }
    }

    /// An older tree never goes over a newer bucket: its clients would refuse the rollback.
    @Test func anOlderTreeIsRefusedOverANewerBucket() throws {
        let t = try publishTwoVersions()
        #expect(try upload(t.f, tree: t.f.tree, prefix: "tree").status == 0)
        let r = try upload(t.f, tree: t.v1.path, prefix: "tree")
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("bucket-ahead") || r.stderr.contains("already holds catalog hosted version 2"), "\(r.stderr)")
        #expect(try bucketPointerVersion(t.f, prefix: "tree") == 2)
    }

    /// Entitled bundles need a private location, apart from the public one, that anonymous
    /// readers are refused; otherwise nothing is uploaded.
    @Test func entitledBundlesAreNeverUploadedWherePeopleCanReadThem() throws {
        let t = try publishTwoVersions()
        let f = t.f
        let noPrivate = try f.corpusd(["upload", f.tree, "--to", "s3://\(ObjectStoreFixture.bucket)/tree", "--endpoint", f.store.endpoint])
        #expect(noPrivate.status == 2 && noPrivate.stderr.contains("need a private location"), "\(noPrivate.stderr)")
        let inside = try f.corpusd(["upload", f.tree, "--to", "s3://\(ObjectStoreFixture.bucket)/tree", "--private", "s3://\(ObjectStoreFixture.bucket)/tree/private",
                                    "--endpoint", f.store.endpoint])
        #expect(inside.status == 2 && inside.stderr.contains("lies inside the public location"), "\(inside.stderr)")
        // A private prefix the store lets anyone read: refused by the probe, before any entitled byte.
        let readable = try f.corpusd(["upload", f.tree, "--to", "s3://\(ObjectStoreFixture.bucket)/elsewhere", "--private", "s3://\(ObjectStoreFixture.bucket)/tree",
                                      "--endpoint", f.store.endpoint])
        #expect(readable.status == 2 && readable.stderr.contains("can be read without credentials"), "\(readable.stderr)")
        #expect(try bucketPointerVersion(f, prefix: "elsewhere") == nil)
        // Wrong credentials: refused by the store, and the message holds no secret.
        var env = f.environment
        env["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-value"
        let denied = try f.corpusd(["upload", f.tree] + f.uploadOptions(), environment: env)
        #expect(denied.status == 2 && denied.stderr.contains("refused by the object store: HTTP 403"), "\(denied.stderr)")
        #expect(!denied.stderr.contains("wrong-secret-value") && !denied.stdout.contains("wrong-secret-value"))
        env["AWS_SECRET_ACCESS_KEY"] = nil
        env["AWS_ACCESS_KEY_ID"] = nil
        env["AWS_SHARED_CREDENTIALS_FILE"] = f.work.url("no-such-credentials")
        let missing = try f.corpusd(["upload", f.tree] + f.uploadOptions(), environment: env)
        #expect(missing.status == 2 && missing.stderr.contains("no S3 credentials found"), "\(missing.stderr)")
    }
}
