import Foundation
import Synchronization
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// Collects access-log entries from server threads.
typealias LogCollector = Collected<AccessLogEntry>

extension Collected<AccessLogEntry> {
    var lines: [String] { all.map(\.description) }
}

/// A hand-built published tree served in-process by a real HTTPServer on an ephemeral loopback port.
final class ServerFixture {
    let tree: ServerTestTree
    let server: HTTPServer
    let logs = LogCollector()
    var port: UInt16 { server.port }

    init(specs: [ServerTestTree.Spec] = ServerTestTree.defaultSpecs, pinKey: Bool = true,
         configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        tree = try ServerTestTree(specs: specs)
        var config = ServerConfiguration(root: tree.root, port: 0, entitlementKey: pinKey ? tree.entitlementKey.publicKey : nil)
        config.threads = 2
        config.catalogCheckInterval = .zero
        let logs = self.logs
        config.accessLog = { logs.append($0) }
        configure(&config)
        server = try HTTPServer(config)
    }

    deinit { server.stop(grace: .seconds(5)) }

    func get(_ target: String, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        try ServerTestClient.request(port: port, "GET", target, headers: headers)
    }

    func bundle(_ corpus: String) -> String { "/" + tree.bundlePaths[corpus]! }

    func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    /// Polls until `condition` holds (at most 10 s); the server updates counters just after a response is sent.
    func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}
