import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// `--offline` / `CORPUS_OFFLINE=1`: no network at all. The remote is pointed at a listener that
/// accepts and never answers (what a blackholed network looks like to a client that tries), so a
/// command that tried would hang; each offline command finishes in under a second, the listener
/// sees no connection, the local commands say how old the cached catalog is, and the network
/// commands refuse with exit 5 leaving the home unchanged.
@Suite struct OfflineModeTests {
    final class Connections: @unchecked Sendable {
        private let lock = NSLock()
        private var fds: [Int32] = []
        func add(_ fd: Int32) { lock.withLock { fds.append(fd) } }
        var count: Int { lock.withLock { fds.count } }
        deinit { for fd in fds { close(fd) } }
    }

    static func timed(_ c: IntegrationClient, _ args: [String], env: [String: String] = [:]) throws -> (ProcessResult, TimeInterval) {
        let t0 = Date()
        let r = try ProcessRunner.run(BuiltProducts.corpus, ["--home", c.home] + args,
                                      environment: IntegrationClient.environment.merging(env) { _, b in b }, timeout: 60)
        return (r, Date().timeIntervalSince(t0))
    }

    /// A home with remote `main` whose catalog (one corpus, `tides`) it accepted after running
    /// `first`; the server is stopped before returning (the publisher is returned to keep its keys).
    static func homeWithCachedCatalog(_ label: String, first: [String]) throws -> (IntegrationClient, IntegrationPublisher, IntegrationPublisher.KeyPair) {
        let publisher = IntegrationPublisher(catalogID: "offline")
        let key = try publisher.keygen("root")
        try publisher.writeCatalog([.init(id: "tides", version: "1", documents: ["tides.md": "# Tides\n\nHigh tide at the harbour.\n"])])
        try publisher.mustPublish(key: key.secret)
        let server = try publisher.serve()
        defer { server.stop() }
        let client = IntegrationClient(label)
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
        try client.must(first)
        return (client, publisher, key)
    }

    @Test func offlineCommandsWorkFromTheHomeSendNothingAndFinishUnderASecond() throws {
        let (client, publisher, key) = try Self.homeWithCachedCatalog("offline", first: ["install", "tides"])

        // The same remote, now at an address that accepts and never answers.
        defer { withExtendedLifetime(publisher) {} }
        let connections = Connections()
        let blackhole = try LoopbackListener { connections.add($0) }
        defer { blackhole.stop() }
        try client.must(["remote", "add", "main", "http://127.0.0.1:\(blackhole.port)", "--trust", key.pub])
        let before = client.snapshot

        for args in [["catalog"], ["show", "tides"], ["status"], ["search", "harbour"], ["verify"], ["list"]] {
            let (r, seconds) = try Self.timed(client, ["--offline"] + args)
            #expect(r.status == 0, "\(args): \(r.stdout) \(r.stderr)")
            #expect(seconds < 1, "\(args) took \(seconds) s")
            if ["catalog", "show", "status"].contains(args[0]) {
                #expect(r.stderr.contains("offline: catalog main version 1, fetched "), "\(args): \(r.stderr)")
            }
        }
        let (search, _) = try Self.timed(client, ["--offline", "search", "harbour"])
        #expect(search.stdout.contains("harbour"), "\(search.stdout)")

        for (args, env, action) in [(["--offline", "install", "tides"], [String: String](), "install"),
                                    (["sync"], ["CORPUS_OFFLINE": "1"], "sync"),
                                    (["--offline", "search", "harbour", "--remote", "main"], [:], "this command")] {
            let (r, seconds) = try Self.timed(client, args, env: env)
            #expect(r.status == 5, "\(args): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("offline mode is on: \(action) needs the network, and nothing was sent"), "\(args): \(r.stderr)")
            #expect(seconds < 1, "\(args) took \(seconds) s")
        }
        let (json, _) = try Self.timed(client, ["--offline", "install", "tides", "--json"])
        #expect(json.status == 5)
        #expect(json.stdout.contains(#""code":"offline""#), "\(json.stdout)")

        #expect(connections.count == 0, "no connection may be attempted in offline mode")
        #expect(client.snapshot == before, "the home is unchanged")
    }

    /// Without the flag, a catalog view whose source does not answer says once that it works from cached data, and how old it is.
    @Test func anUnreachableSourceWithoutTheFlagSaysItWorksFromCachedData() throws {
        let (client, publisher, _) = try Self.homeWithCachedCatalog("unreachable", first: ["catalog"])
        defer { withExtendedLifetime(publisher) {} }
        let (r, _) = try Self.timed(client, ["catalog"], env: ["CORPUS_CATALOG_DEADLINE": "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("working from cached data") }
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(lines.first?.contains("catalog main version 1, fetched ") == true, "\(r.stderr)")
    }
}
