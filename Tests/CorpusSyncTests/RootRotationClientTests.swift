import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// Walks every root-rotation vector (`Tests/Fixtures/root-rotations/`) through the real client:
/// the vector's roots, a catalog and its `timestamp.json` are published as a tree, served over
/// loopback HTTP; a client pinned to root 1 refreshes the catalog (`CatalogFetcher`).
///
/// An accepting vector ends with the expected root trusted and the catalog accepted. A refusing
/// one throws the precise verification refusal, and the home folder is byte-identical to before
/// except for the valid roots walked before the refusal (TUF 5.3.8): exactly their documents and
/// the signature files the client fetched for them appear under `trust/`, byte for byte as served.
///
/// Vectors refused at root 1 are left to `RootRotationVectorTests`: a client is pinned to its first
/// root as given (`corpus remote add --trust`), so it never checks root 1's own signatures.
@Suite struct RootRotationClientTests {
    static let vectors: [RootRotationVector] = (try? RootRotationVector.all()) ?? []
    static let walked = vectors.filter { $0.expect.at != 1 }
    static let catalogID = "vectors"

    @Test func everyVectorButThoseRefusedAtRootOneIsWalked() throws {
        #expect(try RootRotationVector.all().count == Self.vectors.count)
        #expect(Self.vectors.filter { $0.expect.at == 1 }.count == 3, "root 1 refusals: rust-tuf's two, this project's one")
        #expect(Self.walked.count == Self.vectors.count - 3)
    }

    @Test(arguments: walked)
    func theClientReachesEachVectorsOutcome(_ vector: RootRotationVector) async throws {
        let env = try SyncTestEnvironment()
        let tree = TempDirectory("vector-tree")
        let now = Date()
        let chain = try vector.writeTree(into: tree, catalogID: Self.catalogID, now: now)
        let remote = try Self.remote(pinnedTo: chain[0], url: try env.server(root: tree.path).baseURL)

        if vector.expect.accepts {
            let update = try await env.fetcher(now: now).refresh(remote)
            #expect(update.catalog.id == Self.catalogID, "\(vector)")
            #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == vector.expect.trusted, "\(vector)")
            return
        }
        let at = try #require(vector.expect.at)
        let expected = try Self.refusal(vector, chain: chain, at: at)
        #expect(expected.category == .verification, "\(vector): \(expected) exits 3")
        let kept = try vector.keptFiles(chain, folder: "trust/\(remote.name)")
        await env.expectRefusal(expected, keeping: kept.map(\.path), home: env.home.root) {
            try await env.fetcher(now: now).refresh(remote)
        }
        for file in kept {
            #expect(FileManager.default.contents(atPath: "\(env.home.root)/\(file.path)") == file.data, "\(vector): \(file.path) kept as served")
        }
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == vector.expect.trusted, "\(vector)")
    }

    /// The walk the client and the mirror share, from nothing (as `corpusd mirror` copies a chain):
    /// root 1 must sign itself, so here the vectors refused at root 1 are walked too. Expiry is the
    /// refresh's check, not the walk's: an expired newest root is walked and kept.
    @Test(arguments: vectors)
    func theChainWalkFromRootOneStopsWhereTheVectorSays(_ vector: RootRotationVector) async throws {
        let chain = try vector.publish(now: Date())
        var files: [String: Data] = [:]
        for root in chain {
            files[root.path] = root.json
            for file in root.signatures { files[file.path] = file.data }
        }
        let served = files
        let walk = try await RootChainWalk.walk(after: nil) { path, _ in served[path] }
        #expect(walk.links.last?.root.version ?? 0 == vector.expect.trusted, "\(vector)")
        #expect(!walk.truncated)
        if vector.expect.accepts || vector.expect.reason == .expired {
            #expect(walk.refusal == nil, "\(vector): \(String(describing: walk.refusal))")
        } else {
            let at = try #require(vector.expect.at)
            #expect(walk.refusal == (try Self.refusal(vector, chain: chain, at: at)), "\(vector)")
        }
    }

    /// A remote pinned to the vector's root 1: its key for a format-1 root, the document itself
    /// for a format-2 one (as `corpus remote add --trust` does with a `.pub` or a `root-1.json`).
    static func remote(pinnedTo first: RootRotationVector.PublishedRoot, url: String) throws -> Remote {
        let roles = try RootRoles.parse(first.json, what: first.path)
        var remote = try Remote(name: "main", url: url, rootKey: roles.keys(for: .root)[0], rootVersion: roles.version)
        if roles.format >= 2 { try remote.pin(rootDocument: first.json) }
        return remote
    }

    /// The client's refusal for the vector's reason, refused at tree position `at`.
    static func refusal(_ vector: RootRotationVector, chain: [RootRotationVector.PublishedRoot], at: Int) throws -> SyncError {
        let file = TreeLayout.rootKeyPath(version: at)
        switch try #require(vector.expect.reason) {
        case let .thresholdNotMet(keysOf, valid, threshold, missing):
            let ids = try missing.map { try RootRotationVector.keyID(named: $0).description }
            return .rootNotTrusted(file: file, reason: RootLink.Refusal.thresholdNotMet(keysOf: keysOf, valid: valid, threshold: threshold, missing: ids).description)
        case let .wrongVersion(expected, found):
            return .catalogMismatch(reason: "\(file) \(RootLink.Refusal.wrongVersion(expected: expected, found: found))")
        case let .formatDowngrade(from, to):
            return .catalogMismatch(reason: "\(file) \(RootLink.Refusal.formatDowngrade(from: from, to: to))")
        case .signatureMissing: return .signatureMissing(file: file + TreeLayout.signatureSuffix)
        case let .untrustedKey(name): return .untrustedKey(keyID: try RootRotationVector.keyID(named: name).description)
        case .signatureInvalid: return .signatureInvalid(what: "the signed file")
        case .malformed, .unsupported:
            // The document's own parse error, as the client words it (`SyncError.from`).
            do {
                _ = try RootRoles.parse(chain[at - 1].json, what: file)
            } catch let e as FormatError {
                return SyncError.from(e)
            }
            throw VectorError("\(vector): root \(at) parses")
        case .expired:
            let expires = try #require(try RootRoles.parse(chain[at - 1].json, what: file).expires)
            return .rootExpired(version: at, at: Timestamp.format(expires))
        }
    }
}
