import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// One install, one connection: the catalog refresh and the bundle download of an operation share
/// its `HTTPClient`, and a refused response with a small body (a tree's 404 for the next root key,
/// which ends every root-chain walk) does not cost the connection. Each test runs on an executor of
/// its own, so a loaded machine cannot leave the connection idle past libcurl's reuse limit.
@Suite struct ConnectionReuseTests {
    private func onOwnThread(_ body: () async throws -> Void) async throws {
        try await withTaskExecutorPreference(DedicatedExecutor(label: "connection-reuse")) { try await body() }
    }

    /// A keep-alive server whose missing files answer `404 not found` with a body, as `corpusd serve` does.
    private func server(_ env: SyncTestEnvironment, notFoundBody: Data) throws -> MisbehavingServer {
        let root = env.tree.root
        return try env.server(keepAlive: true) { request in
            FileManager.default.fileExists(atPath: root + request.path) ? .normal : .statusWithBody(404, notFoundBody)
        }
    }

    @Test func catalogRefreshAndBundleDownloadShareOneConnection() async throws { try await onOwnThread {
        let env = try SyncTestEnvironment()
        let origin = try server(env, notFoundBody: Data("404 not found\n".utf8))
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)
        #expect(origin.requests(for: "/keys/root-2.json").count == 1)
        let done = try await env.downloader.download(env.tree.bundleRef, from: remote.sources)
        #expect(done.digest == env.tree.bundleRef.digest)
        #expect(origin.connectionCount == 1)
    } }

    /// The refusal is the same whether its body was read or not; a body larger than is worth
    /// reading stops the transfer (and the connection) as before.
    @Test func aLargeRefusedBodyIsNotReadAndTheRefusalStands() async throws { try await onOwnThread {
        let env = try SyncTestEnvironment()
        let origin = try server(env, notFoundBody: Data(repeating: 0x41, count: 256 * 1024))
        let missing = HTTPRequest(url: origin.baseURL + "/keys/root-2.json", maxBodyBytes: 64 * 1024)
        await #expect(throws: TransportError.httpStatus(code: 404)) { try await env.client.get(missing) }
        _ = try await env.client.get(HTTPRequest(url: origin.baseURL + "/catalog.json", maxBodyBytes: 64 * 1024))
        if TestTransport.isCurl {
            #expect(origin.connectionCount == 2)
        } else {
            // URLSession reads ahead of the delegate: on loopback the 256 KiB are often in before
            // the task is cancelled, and then the connection is kept. The refusal is the point.
            #expect((1...2).contains(origin.connectionCount), "\(origin.connectionCount) connections")
        }
    } }

    @Test func aSmallRefusedBodyKeepsTheConnectionAndTheRefusalStands() async throws { try await onOwnThread {
        let env = try SyncTestEnvironment()
        let origin = try server(env, notFoundBody: Data("404 not found\n".utf8))
        let missing = HTTPRequest(url: origin.baseURL + "/keys/root-2.json", maxBodyBytes: 64 * 1024)
        await #expect(throws: TransportError.httpStatus(code: 404)) { try await env.client.get(missing) }
        _ = try await env.client.get(HTTPRequest(url: origin.baseURL + "/catalog.json", maxBodyBytes: 64 * 1024))
        #expect(origin.connectionCount == 1)
    } }
}
