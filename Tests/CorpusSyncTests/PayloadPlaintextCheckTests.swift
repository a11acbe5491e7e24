import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// An encrypted payload's plaintext checked while the payload downloads (`PayloadPlaintextCheck`,
/// fed by the downloader): whichever way the partial download grew (in one go, resumed, restarted
/// from zero by the server, refetched after a damaged partial) the check ends with the hash of the
/// whole plaintext, and a plaintext other than the catalog's, or a key that does not open the
/// payload, is refused.
@Suite struct PayloadPlaintextCheckTests {
    let key = try! AgeFileKey(bytes: Array(100..<116))

    func origin(_ s: MisbehavingServer) -> Source { Source(baseURL: s.baseURL, isOrigin: true) }

    /// The fixture's bundle (300 kB: five chunks) encrypted as a payload in the served tree.
    func publishPayload(_ env: SyncTestEnvironment) throws -> BundleRef {
        let work = TempDirectory("payload")
        let ref = try EncryptedPayload.encrypt(fileAt: env.tree.root + "/" + env.tree.bundleRef.path, to: work.url("payload.age"), fileKey: key)
        try env.tree.directory.write(ref.path, try Data(contentsOf: URL(fileURLWithPath: work.url("payload.age"))))
        return ref
    }

    func payloadBytes(_ env: SyncTestEnvironment, _ ref: BundleRef) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: env.tree.root + "/" + ref.path))
    }

    /// Downloads `ref` with a new check and returns what the check verified.
    func download(_ env: SyncTestEnvironment, _ ref: BundleRef, from server: MisbehavingServer,
                  key: AgeFileKey? = nil) async throws -> (digest: SHA256Digest, size: Int64) {
        let check = PayloadPlaintextCheck(fileKey: key ?? self.key)
        _ = try await env.downloader.download(ref, from: [origin(server)], tap: check)
        return try check.verified(as: env.tree.bundleRef, payload: ref.path)
    }

    func expectBundle(_ env: SyncTestEnvironment, _ result: (digest: SHA256Digest, size: Int64), sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.digest == env.tree.bundleRef.digest && result.size == env.tree.bundleRef.size, sourceLocation: sourceLocation)
    }

    @Test func inOneGo() async throws {
        let env = try SyncTestEnvironment()
        let ref = try publishPayload(env)
        expectBundle(env, try await download(env, ref, from: try env.server()))
    }

    /// The second attempt resumes mid-chunk: the check takes the bytes already on disk first.
    @Test func resumedInTheSameRun() async throws {
        let env = try SyncTestEnvironment()
        let ref = try publishPayload(env)
        let server = try env.server { $0.index == 0 ? .truncateAfter(bytes: 100_003) : .normal }
        expectBundle(env, try await download(env, ref, from: server))
        #expect(server.requests(for: "/" + ref.path).map { $0.headers["range"] } == [nil, "bytes=100003-"])
    }

    /// A partial left by an earlier run (another process, so another check) is resumed.
    @Test func resumedFromAnEarlierRunsPartial() async throws {
        let env = try SyncTestEnvironment()
        let ref = try publishPayload(env)
        try payloadBytes(env, ref).prefix(200_001).write(to: URL(fileURLWithPath: env.home.partial(sha256: ref.digest)))
        let server = try env.server()
        expectBundle(env, try await download(env, ref, from: server))
        #expect(server.requests(for: "/" + ref.path).map { $0.headers["range"] } == ["bytes=200001-"])
    }

    /// A server that answers the range with the whole file: the partial starts over, and so does the check.
    @Test func restartedByAServerIgnoringTheRange() async throws {
        let env = try SyncTestEnvironment()
        let ref = try publishPayload(env)
        try payloadBytes(env, ref).prefix(70_000).write(to: URL(fileURLWithPath: env.home.partial(sha256: ref.digest)))
        let server = try env.server { _ in .ignoreRange }
        expectBundle(env, try await download(env, ref, from: server))
    }

    /// A damaged partial (its bytes do not authenticate) fails the payload's hash once resumed and
    /// is fetched again from zero: the check forgets what it saw of it.
    @Test func refetchedAfterADamagedPartial() async throws {
        let env = try SyncTestEnvironment()
        let ref = try publishPayload(env)
        var damaged = try payloadBytes(env, ref).prefix(150_000)
        damaged[damaged.startIndex + 80_000] ^= 0x01
        try damaged.write(to: URL(fileURLWithPath: env.home.partial(sha256: ref.digest)))
        let server = try env.server()
        expectBundle(env, try await download(env, ref, from: server))
        #expect(server.requests(for: "/" + ref.path).map { $0.headers["range"] } == ["bytes=150000-", nil])
    }

    /// The payload verified, but its plaintext is not the catalog's (a catalog naming another
    /// bundle), or the key does not open it: refused, the first with the plaintext's hash or size,
    /// the second at the first chunk.
    @Test func aPlaintextOtherThanTheCatalogsOrAWrongKeyIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let ref = try publishPayload(env)
        let server = try env.server()
        let check = PayloadPlaintextCheck(fileKey: key)
        _ = try await env.downloader.download(ref, from: [origin(server)], tap: check)
        var other = env.tree.bundleRef
        other.digest = try #require(SHA256Digest(hex: String(repeating: "ab", count: 32)))
        #expect(throws: SyncError.hashMismatch(file: other.path, expected: other.digest.hex, actual: env.tree.bundleRef.digest.hex)) {
            try check.verified(as: other, payload: ref.path)
        }

        let sized = PayloadPlaintextCheck(fileKey: key)
        _ = try await env.downloader.download(ref, from: [origin(server)], tap: sized)
        var longer = env.tree.bundleRef
        longer.size += 1
        #expect(throws: SyncError.sizeMismatch(file: longer.path, expected: longer.size, actual: env.tree.bundleRef.size)) {
            try sized.verified(as: longer, payload: ref.path)
        }

        await #expect(throws: SyncError.decryption(file: ref.path, cause: .chunkAuthenticationFailed(chunk: 0))) {
            _ = try await download(env, ref, from: server, key: try AgeFileKey(bytes: Array(0..<16)))
        }
    }
}
