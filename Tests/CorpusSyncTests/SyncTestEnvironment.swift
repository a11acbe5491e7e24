import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// A client home, a published tree and loopback servers for one test; timeouts are short so
/// failure paths finish quickly, and nothing asserts on elapsed time.
final class SyncTestEnvironment: HomeSnapshotting, @unchecked Sendable {
    let homeDir = TempDirectory("home")
    let home: HomeLayout
    let tree: StaticTreeFixture
    let client: HTTPClient
    let retry = RetryPolicy(attemptsPerSource: 2, initialBackoff: 0.01, maxBackoff: 0.05)
    private var servers: [MisbehavingServer] = []

    init(stallTimeout: Double = 0.5, bundleSize: Int = 300_000) throws {
        home = HomeLayout(root: homeDir.path)
        try home.createFolders()
        tree = try StaticTreeFixture(bundleSize: bundleSize)
        client = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: 2, stallTimeout: stallTimeout,
                                                                       transport: TestTransport.factory))
    }

    deinit { servers.forEach { $0.stop() } }

    /// A server for the fixture's tree (or another folder), stopped when the environment goes.
    func server(root: String? = nil, keepAlive: Bool = false,
                _ behavior: @escaping @Sendable (MisbehavingServer.Request) -> MisbehavingServer.Behavior = { _ in .normal }) throws -> MisbehavingServer {
        let s = try MisbehavingServer(root: root ?? tree.root, keepAlive: keepAlive, behavior: behavior)
        servers.append(s)
        return s
    }

    func remote(_ origin: MisbehavingServer, mirrors: [MisbehavingServer] = []) throws -> Remote {
        try Remote(name: "main", url: origin.baseURL, mirrors: mirrors.map(\.baseURL), rootKey: tree.pinnedKey)
    }

    /// No total deadline: tests share two cores and a cooperative pool that blocking tests beside
    /// them can hold for seconds, so a 20 s wall-clock bound fails a correct refresh (seen in CI).
    /// The deadline itself is tested against the real binary in CatalogDeadlineTests.
    func fetcher(now: Date = Date()) -> CatalogFetcher {
        var fetcher = CatalogFetcher(home: home, client: client, retry: retry, now: { now })
        fetcher.deadline = nil
        return fetcher
    }

    var downloader: Downloader { Downloader(home: home, client: client, retry: retry) }

    var snapshot: DirectorySnapshot { DirectorySnapshot(home.root) }
}
