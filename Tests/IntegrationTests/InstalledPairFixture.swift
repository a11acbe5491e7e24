import Testing
import Foundation
import CorpusTestSupport

/// A tree published by `corpusd` offering `base` and `tides` (every passage says "tidewater"),
/// served by `corpusd serve`, and a home with both installed through the real `corpus`.
final class InstalledPairFixture: @unchecked Sendable {
    let tree: PublishedCorpusTree
    let server: ServerProcess
    let client = PublishedTreeClient()

    init() throws {
        tree = try PublishedCorpusTree(corpora: [KillFixture.base, KillFixture.tides("1")])
        server = try tree.serve(entitlements: false)
        try client.addRemote(server.url, trust: tree.rootPub)
        try KillFixture.expectSuccess(try client.run(["install", "base", "tides"]), "corpus install base tides")
    }

    deinit { server.stop() }

    /// The installed version folder of `id`.
    func versionFolder(_ id: String, version: String = "1") -> String {
        "\(client.home)/corpora/main/\(id)/versions/\(version)"
    }

    /// The `error` object of a `--json` refusal.
    static func error(_ object: [String: Any]?) -> [String: Any]? { object?["error"] as? [String: Any] }
}
