import Testing
import Foundation
import CorpusTestSupport

/// The world the kill tests share: a tree published twice by `corpusd` (catalog 1 offers
/// `tides` 1, catalog 2 offers `tides` 2; `base` 1 in both), two `corpusd serve` processes (one
/// for a frozen copy of catalog 1, one for the live tree), and two prepared homes to copy:
/// `fresh` (base installed, tides not) and `old` (base and tides 1 installed, the remote then
/// pointed at catalog 2, so `corpus sync` updates tides to 2).
///
/// Every passage contains "tidewater"; tides 1 passages say "ebbing", tides 2 "flooding", base
/// "lighthouse", so a search shows which version of each corpus answered.
final class KillFixture: @unchecked Sendable {
    let tree: PublishedCorpusTree
    let catalog1: TempDirectory
    let server1: ServerProcess
    let server2: ServerProcess
    let fresh = PublishedTreeClient()
    let old = PublishedTreeClient()

    static let base = PublishedCorpusTree.Corpus(id: "base", documents: PublishedCorpusTree.documents("tidewater lighthouse", seed: 3))
    static func tides(_ version: String) -> PublishedCorpusTree.Corpus {
        PublishedCorpusTree.Corpus(id: "tides", version: version,
                                   documents: PublishedCorpusTree.documents("tidewater \(word(version))", count: 6, paragraphs: 4,
                                                                            seed: UInt64(version)! + 10))
    }
    static func word(_ version: String) -> String { version == "1" ? "ebbing" : "flooding" }

    init() throws {
        tree = try PublishedCorpusTree(corpora: [Self.base, Self.tides("1")])
        catalog1 = try tree.snapshotCopy()
        // No delta: these kills are of the full path (DeltaKillTests kill the delta path).
        try tree.publish([Self.base, Self.tides("2")], deltas: 0)
        server1 = try tree.serve(root: catalog1.path, entitlements: false)
        server2 = try tree.serve(entitlements: false)

        try old.addRemote(server1.url, trust: tree.rootPub)
        try Self.expectSuccess(try old.run(["install", "base", "tides"]))
        try old.addRemote(server2.url, trust: tree.rootPub)

        try fresh.addRemote(server2.url, trust: tree.rootPub)
        try Self.expectSuccess(try fresh.run(["install", "base"]))
    }

    deinit {
        server1.stop()
        server2.stop()
    }

    static func expectSuccess(_ r: ProcessResult, _ what: String = "") throws {
        guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "\(what) exited \(r.status): \(r.stderr)") }
    }

    /// Checks that the home opens and answers searches from one whole state: `tides` at one of
    /// `allowed` (nil: not installed), every tides hit from that version, base intact.
    /// Returns the tides version found.
    @discardableResult
    static func expectWholeState(_ client: PublishedTreeClient, allowed: Set<String?>, _ label: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let installed = try client.installed()
        guard let installed else {
            Issue.record("\(label): corpus list failed", sourceLocation: sourceLocation)
            return nil
        }
        #expect(installed.contains("base@1"), "\(label): base is gone: \(installed)", sourceLocation: sourceLocation)
        let tides = installed.first { $0.hasPrefix("tides@") }.map { String($0.dropFirst("tides@".count)) }
        #expect(allowed.contains(tides), "\(label): tides is at \(tides ?? "none"), allowed \(allowed)", sourceLocation: sourceLocation)
        guard let hits = try client.search("tidewater") else {
            Issue.record("\(label): corpus search failed", sourceLocation: sourceLocation)
            return tides
        }
        #expect(hits.contains { $0.corpus == "base@1" && $0.text.contains("lighthouse") }, "\(label): base does not answer",
                sourceLocation: sourceLocation)
        let tidesHits = hits.filter { $0.corpus.hasPrefix("tides@") }
        if let tides {
            #expect(!tidesHits.isEmpty, "\(label): tides \(tides) is listed but does not answer", sourceLocation: sourceLocation)
            for h in tidesHits {
                #expect(h.corpus == "tides@\(tides)" && h.text.contains(word(tides)), "\(label): a hit from another state: \(h)",
                        sourceLocation: sourceLocation)
            }
        } else {
            #expect(tidesHits.isEmpty, "\(label): tides answers but is not listed", sourceLocation: sourceLocation)
        }
        return tides
    }

    /// After a rerun: tides at `version` (or absent), `verify` passes, and `gc` leaves exactly one
    /// version folder and nothing in `staging/` or `downloads/`.
    static func expectSettled(_ client: PublishedTreeClient, tides version: String?, _ label: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectWholeState(client, allowed: [version], "\(label), after the rerun", sourceLocation: sourceLocation)
        let verify = try client.run(["verify"])
        #expect(verify.status == 0, "\(label): verify: \(verify.stderr)", sourceLocation: sourceLocation)
        let gc = try client.run(["gc"])
        #expect(gc.status == 0, "\(label): gc: \(gc.stderr)", sourceLocation: sourceLocation)
        #expect(client.entries("staging").isEmpty, "\(label): staging keeps \(client.entries("staging"))", sourceLocation: sourceLocation)
        #expect(client.entries("downloads").isEmpty, "\(label): downloads keeps \(client.entries("downloads"))", sourceLocation: sourceLocation)
        if let version {
            #expect(client.entries("corpora/main/tides") == ["current", "versions"], "\(label): \(client.entries("corpora/main/tides"))",
                    sourceLocation: sourceLocation)
            #expect(client.entries("corpora/main/tides/versions") == [version], sourceLocation: sourceLocation)
        } else {
            #expect(client.entries("corpora/main").filter { $0 == "tides" }.isEmpty, sourceLocation: sourceLocation)
        }
        #expect(client.entries("corpora/main/base/versions") == ["1"], sourceLocation: sourceLocation)
    }
}

/// Runs `body` over `items` with at most `width` at a time (each item is a few child processes).
func forEachConcurrently<T: Sendable>(_ items: [T], width: Int = 2, _ body: @escaping @Sendable (T) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var iterator = items.makeIterator()
        for _ in 0..<width {
            guard let item = iterator.next() else { break }
            group.addTask { try await body(item) }
        }
        while try await group.next() != nil {
            if let item = iterator.next() { group.addTask { try await body(item) } }
        }
    }
}
