import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// A client home, a hand-signed catalog tree with real bundles (a `PackFixture` pack and vectors,
/// zipped and signed by `BundleWriter` with the tree's root key) and a loopback server that logs
/// every request, for installer and `CorpusClient` tests.
final class ClientTestEnvironment: HomeSnapshotting, @unchecked Sendable {
    let homeDir = TempDirectory("client-home")
    let home: HomeLayout
    let tree: StaticTreeFixture
    let work = TempDirectory("client-bundles")
    let server: MisbehavingServer
    var client: CorpusClient
    private var catalogVersion = 0

    init() throws {
        home = HomeLayout(root: homeDir.path)
        tree = try StaticTreeFixture(bundleSize: 64)
        server = try MisbehavingServer(root: tree.root)
        client = CorpusClient(home: home, retry: RetryPolicy(attemptsPerSource: 1, initialBackoff: 0.01, maxBackoff: 0.01),
                              httpConfiguration: HTTPClientConfiguration(connectTimeout: 2, stallTimeout: 2,
                                                                         transport: TestTransport.factory))
        // No total catalog deadline in-process (see SyncTestEnvironment.fetcher).
        client.catalogDeadline = nil
        _ = try client.addRemote(name: "main", url: server.baseURL, mirrors: [], trust: tree.pinnedKey)
    }

    deinit { server.stop() }

    var key: SecretKey { tree.rootKeys[0] }

    /// A real signed bundle whose one document holds `words` (so searches can tell versions apart).
    typealias Bundle = SignedBundle

    func bundle(id: String, version: String, words: String, key: SecretKey? = nil, tamperPack: ((String) throws -> Void)? = nil) throws -> Bundle {
        let fixture = PackFixture(id: id, version: version, texts: ["notes/\(id).md": ["\(id) version \(version): \(words)", "A second passage about \(words)."]])
        return try tree.signedBundle(fixture, work: work, key: key ?? self.key, tamperPack: tamperPack)
    }

    /// The catalog entry for a bundle, stored in the tree under its content hash.
    /// `as` overrides what the catalog claims (id, version), to stage a mismatch.
    func entry(_ b: Bundle, access: Access = .free, tier: String? = nil, bundled: Bool = false,
               claimID: String? = nil, claimVersion: String? = nil) throws -> CatalogEntry {
        try tree.catalogEntry(for: b, access: access, tier: tier, bundled: bundled, claimID: claimID, claimVersion: claimVersion)
    }

    /// Publishes the next catalog version offering exactly `entries`.
    func publish(_ entries: [CatalogEntry]) throws {
        catalogVersion += 1
        try tree.publish(version: catalogVersion, corpora: entries)
    }

    /// Every file, folder and link of the home except lock files (which may come and go).
    var snapshot: DirectorySnapshot { DirectorySnapshot(home.root, ignoring: { $0 == "locks" || $0.hasPrefix("locks/") }) }

    /// Requests for bundle files the server received so far.
    var bundleRequests: [MisbehavingServer.Request] { server.requests.filter { $0.path.hasPrefix("/bundles/") } }

    /// The version `current` points at, read from the link itself.
    func currentTarget(_ id: String, remote: String = "main") -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: home.currentLink(remote: remote, id: id))
    }

    func versions(_ id: String, remote: String = "main") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home.versionsDirectory(remote: remote, id: id))) ?? []).sorted()
    }

    func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Lexical hits for `word` across installed corpora, as (corpus, version) pairs.
    func search(_ word: String) async throws -> [String] {
        var options = SearchOptions()
        options.lexicalOnly = true
        return try await CorpusLibrary(home: home.root).search(word, options: options).map { "\($0.corpus)@\($0.version)" }
    }
}
