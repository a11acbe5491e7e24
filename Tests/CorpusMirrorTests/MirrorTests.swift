import Foundation
import Synchronization
import Testing
import CorpusFormat
import CorpusSync
import CorpusTestSupport
@testable import CorpusServer
@testable import CorpusMirror

/// `MirrorUpdater` against real published trees (`corpusd publish`), served over loopback by the
/// real `HTTPServer` or a `MisbehavingServer` where the upstream must lie.
@Suite struct MirrorTests {
    static let noWait = RetryPolicy(attemptsPerSource: 2, initialBackoff: 0, maxBackoff: 0)

    /// A real HTTPServer on `root`, its access log collected.
    final class Upstream {
        let server: HTTPServer
        let logs = Collected<AccessLogEntry>()
        var url: String { "http://127.0.0.1:\(server.port)" }

        init(_ root: String, entitlement: String? = nil) throws {
            var config = ServerConfiguration(root: root, port: 0, entitlementKey: try entitlement.map { try PublicKey(contentsOf: $0) })
            config.threads = 2
            config.catalogCheckInterval = .zero
            let logs = self.logs
            config.accessLog = { logs.append($0) }
            server = try HTTPServer(config)
        }

        deinit { server.stop(grace: .seconds(2)) }

        var bundleRequests: Int { logs.all.filter { $0.path.hasPrefix("/bundles/") }.count }
    }

    func updater(_ url: String, _ out: String, trust: String, token: String? = nil,
                 now: @escaping @Sendable () -> Date = { Date() }) throws -> MirrorUpdater {
        MirrorUpdater(upstream: url, directory: out, trustedKey: try PublicKey(contentsOf: trust), token: token, retry: Self.noWait, now: now)
    }

    /// Runs `body` and returns the `SyncError` it threw (nil when it did not throw one).
    func refusal(_ body: () async throws -> Void) async -> SyncError? {
        do { try await body() } catch let e as SyncError { return e } catch { Issue.record("unexpected error \(error)") }
        return nil
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func mirrorCopiesTheTreeByteForByteAndASecondRunFetchesNothing() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let out = work.url("mirror")
        let events = Mutex([String]())

        let first = try await updater(upstream.url, out, trust: fixture.rootPub).run { event in
            if case let .downloaded(corpus, _, _) = event { events.withLock { $0.append(corpus) } }
        }
        #expect(first.previousVersion == nil && first.catalog.version == 1)
        #expect(Set(first.fetched) == Set([try fixture.bundlePath("tides"), try fixture.bundlePath("bread")]))
        #expect(first.fetchedBytes == Int64(first.fetched.reduce(0) { $0 + (bytes("\(fixture.tree)/\($1)")?.count ?? 0) }))
        #expect(first.skippedEntitled == ["atlas"])
        #expect(Set(events.withLock { $0 }) == ["tides", "bread"])
        for file in ["catalog.json", "catalogs/1.json", "catalogs/1.json.minisig", "keys/root-1.json", "keys/root-1.json.minisig",
                     "keys/root.pub", "index.html", try fixture.bundlePath("tides"), try fixture.bundlePath("bread")] {
            #expect(bytes("\(out)/\(file)") != nil && bytes("\(out)/\(file)") == bytes("\(fixture.tree)/\(file)"), "\(file)")
        }
        #expect(!FileIO.exists("\(out)/\(try fixture.bundlePath("atlas"))"))
        #expect(!FileIO.exists("\(out)/.mirror"))

        // A second run hashes what it holds and downloads nothing; the folder does not change at all.
        let before = DirectorySnapshot(out)
        let requestsBefore = upstream.bundleRequests
        let second = try await updater(upstream.url, out, trust: fixture.rootPub).run()
        #expect(second.fetched.isEmpty && second.fetchedBytes == 0 && second.present.count == 2 && second.catalogUnchanged)
        #expect(upstream.bundleRequests == requestsBefore)
        #expect(DirectorySnapshot(out) == before)

        // The mirror, served, is a tree the real client verifies and downloads from.
        let served = try Upstream(out)
        let home = TempDirectory("mirror-client")
        let client = try HTTPClient()
        let remote = try Remote(name: "main", url: served.url, rootKey: try PublicKey(contentsOf: fixture.rootPub))
        var fetcher = CatalogFetcher(home: HomeLayout(root: home.path), client: client, retry: Self.noWait)
        fetcher.deadline = nil // a loaded test run can hold the cooperative pool past 20 s
        let update = try await fetcher.refresh(remote)
        #expect(update.catalog.version == 1 && update.catalog.id == fixture.catalogID)
        let tides = try #require(update.catalog.corpora.first { $0.id == "tides" })
        let download = try await Downloader(home: HomeLayout(root: home.path), client: client, retry: Self.noWait)
            .download(tides.bundle, from: remote.sources)
        #expect(bytes(download.path) == bytes("\(fixture.tree)/\(tides.bundle.path)"))
    }

    /// The listing parts `corpus catalog` reads (docs/format.md "Listing parts") come with the top
    /// document, byte for byte, and a client browsing the mirror then holds the whole listing.
    @Test func mirrorCarriesTheListingParts() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let out = work.url("mirror")
        _ = try await updater(upstream.url, out, trust: fixture.rootPub).run()
        let top = try Catalog.decode(try #require(bytes("\(fixture.tree)/\(TreeLayout.topPath(version: 1))")))
        let listing = try #require(top.listing)
        let parts = try ListingDocument.index(stored: try #require(bytes("\(fixture.tree)/\(listing.index.path)")), ref: listing.index)
        for ref in [listing.index] + parts.map(\.part) {
            #expect(bytes("\(out)/\(ref.path)") != nil && bytes("\(out)/\(ref.path)") == bytes("\(fixture.tree)/\(ref.path)"), "\(ref.path)")
        }

        let served = try Upstream(out)
        let home = HomeLayout(root: TempDirectory("mirror-browser").path)
        try home.createFolders()
        let remote = try Remote(name: "main", url: served.url, rootKey: try PublicKey(contentsOf: fixture.rootPub))
        var fetcher = CatalogFetcher(home: home, client: try HTTPClient(), retry: Self.noWait)
        fetcher.deadline = nil
        fetcher.browsing = true
        _ = try await fetcher.refresh(remote)
        #expect(ListingCache(home: home, remote: "main").complete(listing) == parts)
    }

    /// A version too large for a flat catalog (`Catalog.maxFlatBytes`) has only its top document
    /// (docs/format.md "Catalog parts"): the mirror copies it with every trie and listing part,
    /// the bundles its parts list, the timestamp and the pointer naming the top document, byte for
    /// byte, and a `corpus` client of the mirror installs from it.
    @Test func aVersionWithOnlyATopDocumentIsMirroredAndItsClientsInstallFromIt() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let tides = try fixture.bundlePath("tides"), bread = try fixture.bundlePath("bread")
        try fixture.dropFlatCatalog()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let out = work.url("mirror")

        let summary = try await updater(upstream.url, out, trust: fixture.rootPub).run()
        #expect(summary.catalog.version == 1 && Set(summary.fetched) == [tides, bread] && summary.skippedEntitled == ["atlas"])
        let topPath = TreeLayout.topPath(version: 1)
        let top = try Catalog.decode(try #require(bytes("\(fixture.tree)/\(topPath)")))
        let trie = try CatalogPartWalk.entries(of: try #require(top.parts), ids: nil) { bytes("\(fixture.tree)/\($0.path)") }
        let listing = try #require(top.listing)
        let listed = try ListingDocument.index(stored: try #require(bytes("\(fixture.tree)/\(listing.index.path)")), ref: listing.index)
        let parts = trie.read.map(\.ref.path) + [listing.index.path] + listed.map(\.part.path)
        for file in ["catalog.json", "timestamp.json", "timestamp.json.minisig", topPath, topPath + ".minisig", tides, bread] + parts {
            #expect(bytes("\(out)/\(file)") != nil && bytes("\(out)/\(file)") == bytes("\(fixture.tree)/\(file)"), "\(file)")
        }
        #expect(!FileIO.exists("\(out)/\(TreeLayout.catalogPath(version: 1))"))
        #expect(!FileIO.exists("\(out)/.mirror"))

        // A second run finds everything in place and changes nothing.
        let before = DirectorySnapshot(out)
        let second = try await updater(upstream.url, out, trust: fixture.rootPub).run()
        #expect(second.fetched.isEmpty && second.catalogUnchanged)
        #expect(DirectorySnapshot(out) == before)

        let served = try Upstream(out)
        let client = PublishedTreeClient()
        let added = try client.run(["remote", "add", "main", served.url, "--trust", fixture.rootPub])
        #expect(added.status == 0, "\(added.stderr)")
        let installed = try client.run(["install", "tides"])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(served.logs.all.contains { $0.path == "/\(tides)" })
    }

    /// A tree that grows past the cap: the mirror holds flat version 1, the upstream's version 2
    /// has only its top document; the run fetches the changed bundle and the parts it lacks, and
    /// points `catalog.json` at the top document as the upstream does.
    @Test func aMirrorOfFlatCatalogsFollowsTheUpstreamToATopOnlyVersion() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        try fixture.edit("tides", version: "2")
        try fixture.publish()
        let tides = try fixture.bundlePath("tides")
        try fixture.dropFlatCatalog()

        let summary = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        #expect(summary.previousVersion == 1 && summary.catalog.version == 2 && summary.fetched == [tides] && summary.present.count == 1)
        for file in ["catalog.json", "timestamp.json", TreeLayout.topPath(version: 2), tides] {
            #expect(bytes(work.url(file)) != nil && bytes(work.url(file)) == bytes("\(fixture.tree)/\(file)"), "\(file)")
        }
        #expect(FileIO.exists(work.url(TreeLayout.catalogPath(version: 1))) && !FileIO.exists(work.url(TreeLayout.catalogPath(version: 2))))
    }

    /// A top-only upstream whose version is below the mirror's newest (held in either form) is a
    /// rollback, refused before anything is written.
    @Test func aTopOnlyUpstreamBelowTheMirrorsNewestIsRefusedAsRollback() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        try fixture.dropFlatCatalog()
        let names = ["catalog.json", "timestamp.json", "timestamp.json.minisig"]
        let first = try names.map { try #require(bytes("\(fixture.tree)/\($0)")) }
        try fixture.edit("tides", version: "2")
        try fixture.publish()
        try fixture.dropFlatCatalog()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let mirrored = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        #expect(mirrored.catalog.version == 2)
        #expect(!FileIO.exists(work.url(TreeLayout.catalogPath(version: 2))) && FileIO.exists(work.url(TreeLayout.topPath(version: 2))))
        let before = DirectorySnapshot(work.path)

        // The upstream points back at version 1 (validly signed, older), with the timestamp that named it then.
        for (name, data) in zip(names, first) { try FileIO.writeAtomically(data, to: "\(fixture.tree)/\(name)") }
        let rollback = await refusal { _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run() }
        #expect(rollback == .rollback(from: 2, to: 1))
        #expect(DirectorySnapshot(work.path) == before)
    }

    /// `corpusd serve` (`HTTPServer`) gates a top-only tree's entitled bundles from its parts: a
    /// token for another corpus is refused for `atlas`, one for `atlas` gets it.
    @Test func aTopOnlyTreeIsServedWithItsEntitledBundlesGated() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let atlas = try fixture.bundlePath("atlas")
        try fixture.dropFlatCatalog()
        let upstream = try Upstream(fixture.tree, entitlement: fixture.entitlementPub)
        let work = TempDirectory("mirror-out")
        let wrong = await refusal {
            _ = try await updater(upstream.url, work.url("m"), trust: fixture.rootPub, token: try fixture.token(corpora: ["tides"])).run()
        }
        #expect(wrong == .entitlementDenied(file: atlas))
        let good = try await updater(upstream.url, work.url("m"), trust: fixture.rootPub, token: try fixture.token(corpora: ["atlas"])).run()
        #expect(good.fetched.count == 3 && good.fetched.contains(atlas))
        #expect(bytes(work.url("m/\(atlas)")) == bytes("\(fixture.tree)/\(atlas)"))
    }

    /// A corpus built with all-MiniLM-L6-v2 needs its model: the mirror carries the signed artifact
    /// too (verified like a bundle), so a client of the mirror never needs the origin for it.
    @Test(.enabled(if: MirrorTreeFixture.modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func embedderArtifactsAreMirroredVerifiedAndServed() async throws {
        let fixture = try MirrorTreeFixture(withModel: true)
        try fixture.publish()
        let embedder = try #require(try fixture.catalog().embedders?.first)
        let artifact = embedder.artifact.path
        #expect(try fixture.catalog().corpora.first { $0.id == "tides" }?.embedder.modelDigest == embedder.digest)
        let upstream = try Upstream(fixture.tree)
        // The folder must outlive the run: a TempDirectory dropped at once is removed at once, and
        // the mirror then recreates the path where nothing removes it again (87 MB a run).
        let work = TempDirectory("mirror-model")
        defer { withExtendedLifetime(work) {} }
        let out = work.url("mirror")

        let first = try await updater(upstream.url, out, trust: fixture.rootPub).run()
        #expect(first.fetched.contains(artifact))
        #expect(bytes("\(out)/\(artifact)") != nil && bytes("\(out)/\(artifact)") == bytes("\(fixture.tree)/\(artifact)"))
        let second = try await updater(upstream.url, out, trust: fixture.rootPub).run()
        #expect(second.fetched.isEmpty && second.present.contains(artifact))

        // Served from the mirror, the artifact downloads and verifies as the client does it.
        let served = try Upstream(out)
        let home = TempDirectory("mirror-model-client")
        let download = try await Downloader(home: HomeLayout(root: home.path), client: try HTTPClient(), retry: Self.noWait)
            .download(embedder.artifact, from: [Source(baseURL: served.url, isOrigin: true)])
        let verified = try EmbedderArtifactReader(path: download.path).verifyAll(trustedKeys: [try PublicKey(contentsOf: fixture.rootPub)])
        #expect(verified.digest == embedder.digest)
    }

    /// An upstream whose artifact is not the one its catalog signed for stops the run before
    /// anything is written: a new mirror is not even created.
    @Test(.enabled(if: MirrorTreeFixture.modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func aTamperedUpstreamArtifactIsRefusedAndNothingIsWritten() async throws {
        let fixture = try MirrorTreeFixture(withModel: true)
        try fixture.publish()
        let artifact = try #require(try fixture.catalog().embedders?.first).artifact
        var data = try #require(bytes("\(fixture.tree)/\(artifact.path)"))
        data[data.count / 2] ^= 0x01
        try data.write(to: URL(fileURLWithPath: "\(fixture.tree)/\(artifact.path)"))
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-model-tampered")
        defer { withExtendedLifetime(work) {} }
        let out = work.url("mirror")
        let error = await refusal { _ = try await updater(upstream.url, out, trust: fixture.rootPub).run() }
        guard case let .hashMismatch(file, expected, _)? = error else {
            Issue.record("expected a hash mismatch, got \(String(describing: error))")
            return
        }
        #expect(file.hasSuffix(artifact.path) || file.contains(artifact.digest.hex))
        #expect(expected == artifact.digest.hex)
        #expect(!FileIO.exists(out))
    }

    @Test func entitledBundlesAreFetchedWithATokenThatGoesToTheUpstreamOnly() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let token = try fixture.token(corpora: ["atlas"])
        let atlas = "/" + (try fixture.bundlePath("atlas"))
        // The upstream redirects the entitled bundle to another host, which must not see the token.
        let elsewhere = try MisbehavingServer(root: fixture.tree)
        let upstream = try MisbehavingServer(root: fixture.tree) { $0.path == atlas ? .redirect(base: elsewhere.baseURL) : .normal }
        let work = TempDirectory("mirror-out")

        // A token-carrying redirect to a host nobody named as storage is refused, and nothing is kept.
        let refused = await refusal { _ = try await updater(upstream.baseURL, work.path, trust: fixture.rootPub, token: token).run() }
        #expect("\(refused)".contains("does not name as a storage origin"), "\(refused)")
        #expect(elsewhere.requests(for: atlas).isEmpty)

        var named = try updater(upstream.baseURL, work.path, trust: fixture.rootPub, token: token)
        named.storageOrigins = [try #require(Remote.storageOrigin(elsewhere.baseURL))]
        let summary = try await named.run()
        #expect(summary.fetched.count == 3 && summary.skippedEntitled.isEmpty)
        #expect(bytes(work.path + atlas) == bytes(fixture.tree + atlas))
        #expect(upstream.requests(for: atlas).map { $0.headers["authorization"] }.allSatisfy { $0 == "Bearer \(token)" })
        #expect(elsewhere.requests(for: atlas).count == 1 && elsewhere.requests(for: atlas)[0].headers["authorization"] == nil)
        // Free bundles and the signed metadata are fetched without it.
        #expect(upstream.requests.filter { $0.path != atlas }.allSatisfy { $0.headers["authorization"] == nil })
    }

    @Test func aTokenTheUpstreamRefusesStopsTheRunAndChangesNothing() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree, entitlement: fixture.entitlementPub)
        let work = TempDirectory("mirror-out")
        _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        let before = DirectorySnapshot(work.path)

        let wrong = try fixture.token(corpora: ["tides"])
        let error = await refusal { _ = try await updater(upstream.url, work.path, trust: fixture.rootPub, token: wrong).run() }
        #expect(error == .entitlementDenied(file: try fixture.bundlePath("atlas")))
        #expect(DirectorySnapshot(work.path) == before)

        let good = try await updater(upstream.url, work.path, trust: fixture.rootPub, token: try fixture.token(corpora: ["atlas"])).run()
        #expect(good.fetched == [try fixture.bundlePath("atlas")] && good.present.count == 2)
    }

    @Test func aTamperedUpstreamBundleIsRefusedAndTheMirrorIsUnchanged() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try MisbehavingServer(root: fixture.tree)
        let work = TempDirectory("mirror-out")
        let v1 = try await updater(upstream.baseURL, work.path, trust: fixture.rootPub).run()
        let oldTides = try fixture.bundlePath("tides")

        try fixture.edit("tides", version: "2")
        try fixture.publish()
        let newTides = try fixture.bundlePath("tides")
        let real = try #require(bytes("\(fixture.tree)/\(newTides)"))
        var tampered = real
        tampered[tampered.count / 2] ^= 0xff
        let tamperedCopy = tampered
        upstream.setBehavior { $0.path == "/" + newTides ? .content(tamperedCopy) : .normal }
        let before = DirectorySnapshot(work.path)

        let error = await refusal { _ = try await updater(upstream.baseURL, work.path, trust: fixture.rootPub).run() }
        guard case let .hashMismatch(file, expected, actual) = error else { Issue.record("expected a hash mismatch, got \(String(describing: error))"); return }
        #expect(file == newTides && expected == SHA256.hex(real) && actual == SHA256.hex(tampered))
        #expect(DirectorySnapshot(work.path) == before)

        // Honest again: version 2 lands, and v1's bundle stays for clients still reading catalog 1.
        upstream.setBehavior { _ in .normal }
        let v2 = try await updater(upstream.baseURL, work.path, trust: fixture.rootPub).run()
        #expect(v2.previousVersion == v1.catalog.version && v2.catalog.version == 2)
        #expect(v2.fetched == [newTides] && v2.removed.isEmpty)
        #expect(bytes("\(work.path)/\(newTides)") == real && FileIO.exists("\(work.path)/\(oldTides)"))
        #expect(bytes("\(work.path)/catalog.json") == bytes("\(fixture.tree)/catalog.json"))
    }

    @Test func aBundleSignedByAnotherKeyIsRefusedEvenWhenTheCatalogHashMatches() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let work = TempDirectory("mirror-out")
        let upstream = try Upstream(fixture.tree)
        _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        let before = DirectorySnapshot(work.path)

        // A catalog signed by the real root naming a bundle whose manifest the stranger signed.
        let stranger = fixture.dir.url("stranger.corpus.zip")
        try MirrorTreeFixture.corpusd(["build", fixture.dir.url("catalog/tides"), "--id", "tides", "--version", "1",
                                       "--key", fixture.dir.url("keys/stranger.key"), "--out", stranger])
        let data = try #require(bytes(stranger))
        let ref = BundleRef(path: TreeLayout.bundlePath(sha256: SHA256.hex(data)), digest: SHA256.digest(data), size: Int64(data.count))
        try fixture.dir.write("public/\(ref.path)", data)
        var catalog = try fixture.catalog()
        catalog.version += 1
        let index = try #require(catalog.corpora.firstIndex { $0.id == "tides" })
        catalog.corpora[index].bundle = ref
        let key = try SecretKey(contentsOf: fixture.rootKey)
        let catalogBytes = try catalog.canonicalBytes()
        try fixture.dir.write("public/catalogs/\(catalog.version).json", catalogBytes)
        try fixture.dir.write("public/catalogs/\(catalog.version).json.minisig", try key.sign(catalogBytes, trustedComment: catalog.trustedComment).fileText)
        try fixture.dir.write("public/catalog.json", try CanonicalJSON.encode(CatalogPointer(id: catalog.id, version: catalog.version)))
        try fixture.timestamp()

        let error = await refusal { _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run() }
        let strangerID = try PublicKey(contentsOf: fixture.strangerPub).keyID.description
        #expect(error == .untrustedKey(keyID: strangerID))
        #expect(DirectorySnapshot(work.path) == before)
    }

    @Test func anUntrustedPinIsRefusedAndNothingIsWritten() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let rootID = try PublicKey(contentsOf: fixture.rootPub).keyID.description

        // A new mirror: the folder is not even created.
        let fresh = await refusal { _ = try await updater(upstream.url, work.url("new"), trust: fixture.strangerPub).run() }
        #expect(fresh == .untrustedKey(keyID: rootID))
        #expect(!FileIO.exists(work.url("new")))

        // An existing mirror stays byte-identical.
        _ = try await updater(upstream.url, work.url("old"), trust: fixture.rootPub).run()
        let before = DirectorySnapshot(work.url("old"))
        try fixture.edit("bread", version: "2")
        try fixture.publish()
        let existing = await refusal { _ = try await updater(upstream.url, work.url("old"), trust: fixture.strangerPub).run() }
        #expect(existing == .untrustedKey(keyID: rootID))
        #expect(DirectorySnapshot(work.url("old")) == before)
    }

    @Test func rollbackAndExpiredCatalogsAreRefusedAndTheMirrorIsUnchanged() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let names = ["catalog.json", "timestamp.json", "timestamp.json.minisig"]
        let first = try names.map { try #require(bytes("\(fixture.tree)/\($0)")) }
        try fixture.edit("tides", version: "2")
        try fixture.publish(expires: "1d")
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let mirrored = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        #expect(mirrored.catalog.version == 2)
        let before = DirectorySnapshot(work.path)

        // The upstream points back at catalog 1 (validly signed, older), with the timestamp
        // that named it then (the one a freshness check now reads first).
        let current = try names.map { try #require(bytes("\(fixture.tree)/\($0)")) }
        for (name, data) in zip(names, first) { try FileIO.writeAtomically(data, to: "\(fixture.tree)/\(name)") }
        let rollback = await refusal { _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run() }
        #expect(rollback == .rollback(from: 2, to: 1))
        #expect(DirectorySnapshot(work.path) == before)

        // Catalog 2 again, but the clock is past its expiry (a day), though not the timestamp's
        // (a week): a frozen upstream is not passed on.
        for (name, data) in zip(names, current) { try FileIO.writeAtomically(data, to: "\(fixture.tree)/\(name)") }
        try fixture.timestamp(expires: "7d")
        let expires = try fixture.catalog().expires
        let expired = await refusal {
            _ = try await updater(upstream.url, work.path, trust: fixture.rootPub, now: { Date().addingTimeInterval(2 * 86400) }).run()
        }
        #expect(expired == .expired(at: expires))
        #expect(DirectorySnapshot(work.path) == before)
    }

    @Test func bundlesOnlyExpiredCatalogsReferenceAreRemoved() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish(expires: "1d")
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run()
        let oldTides = try fixture.bundlePath("tides")
        try fixture.edit("tides", version: "2")
        try fixture.publish(expires: "30d")
        // The clock below moves two days on: past catalog 1, within a timestamp of three.
        try fixture.timestamp(expires: "3d")

        let later = try await updater(upstream.url, work.path, trust: fixture.rootPub, now: { Date().addingTimeInterval(2 * 86400) }).run()
        #expect(later.removed == [oldTides])
        #expect(!FileIO.exists("\(work.path)/\(oldTides)"))
        let kept = [try fixture.bundlePath("tides"), try fixture.bundlePath("bread")]
        #expect(kept.allSatisfy { FileIO.exists("\(work.path)/\($0)") })
    }

    @Test func aRotatedRootIsFollowedFromEitherPin() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        _ = try await updater(upstream.url, work.url("a"), trust: fixture.rootPub).run()
        try MirrorTreeFixture.corpusd(["keygen", "--out", fixture.dir.url("keys"), "--name", "next"])
        try MirrorTreeFixture.corpusd(["rotate-key", "--out", fixture.tree, "--key", fixture.rootKey, "--new-key", fixture.dir.url("keys/next.key")])
        try MirrorTreeFixture.corpusd(["publish", fixture.catalogFolder, "--out", fixture.tree, "--key", fixture.dir.url("keys/next.key")])

        let fromOld = try await updater(upstream.url, work.url("a"), trust: fixture.rootPub).run()
        let fromNew = try await updater(upstream.url, work.url("b"), trust: fixture.dir.url("keys/next.pub")).run()
        #expect(fromOld.catalog.rootVersion == 2 && fromNew.catalog.rootVersion == 2)
        for out in [work.url("a"), work.url("b")] {
            for file in ["keys/root-1.json", "keys/root-2.json", "keys/root-2.json.minisig", "keys/root.pub", "catalog.json"] {
                #expect(bytes("\(out)/\(file)") == bytes("\(fixture.tree)/\(file)"), "\(file)")
            }
        }
    }

    @Test func anotherRunHoldingTheFolderIsReportedAsALock() async throws {
        let fixture = try MirrorTreeFixture()
        try fixture.publish()
        let upstream = try Upstream(fixture.tree)
        let work = TempDirectory("mirror-out")
        let lock = try FileLock(directory: work.path)
        let error = await refusal { _ = try await updater(upstream.url, work.path, trust: fixture.rootPub).run() }
        #expect(error == .lockHeld(path: work.path))
        #expect(DirectorySnapshot(work.path).entries.isEmpty)
        lock.release()
        #expect(try await updater(upstream.url, work.path, trust: fixture.rootPub).run().fetched.count == 2)
    }
}
