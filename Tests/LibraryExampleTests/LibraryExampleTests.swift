import Foundation
import Testing
import CorpusFormat
import CorpusSync
import CorpusEngine
import CorpusTestSupport

/// Runs docs/library.md's example against a real published tree served by `corpusd serve
/// --search`, and keeps the page's code identical to the compiled one.
@Suite struct LibraryExampleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theExampleSearchesRemotelyInstallsWithEventsUpdatesAndFitsABudget() async throws {
        let tree = try PublishedCorpusTree(catalogID: "example", corpora: [
            .init(id: "tides", documents: PublishedCorpusTree.documents("tidewater ebbing", count: 3, seed: 2)),
        ])
        // The search server's own home, installed with the real `corpus`.
        let serverHome = PublishedTreeClient()
        let origin = try tree.serve()
        _ = try serverHome.addRemote(origin.url, trust: tree.rootPub)
        let installed = try serverHome.run(["install", "tides"])
        origin.stop()
        #expect(installed.status == 0, "\(installed.stderr)")
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}", "--quiet",
                                                               "--search", serverHome.home])
        defer { server.stop() }

        let home = TempDirectory("example-home")
        let app = try CorpusAssistant(client: Self.client(home.path), catalogURL: server.url, rootKey: String(contentsOfFile: tree.rootPub, encoding: .utf8))

        let remote = try await app.searchRemotely("tidewater")
        #expect(!remote.hits.isEmpty)
        #expect(remote.hits.allSatisfy { $0.corpus == "tides" })
        let remotePage = try await app.open(remote.hits[0], installed: false)
        #expect(remotePage.sections.contains { $0.title == remote.hits[0].section && $0.passages.contains { $0.id == remote.hits[0].passageID } })

        let lines = LineLog()
        let outcomes = try #require(try await app.install("tides") { lines.append($0) })
        #expect(outcomes.map(\.kind) == [.installed] && outcomes.unrefreshed.isEmpty)
        #expect(lines.all.contains { $0.hasPrefix("main/tides: ") && $0.contains(" bytes") }, "\(lines.all)")
        #expect(lines.all.last?.hasSuffix("installed") == true, "\(lines.all)")
        // The same ranking on the device as on the server.
        let local = try await LocalRetriever(library: CorpusLibrary(home: home.path)).search("tidewater", options: SearchOptions())
        #expect(local.hits.map(\.passageID) == remote.hits.map(\.passageID))
        #expect(try await app.open(local.hits[0], installed: true) == remotePage, "Read mode reads the same page either way")

        let update = try #require(try await app.update())
        #expect(update.map(\.kind) == [.unchanged] && update.unrefreshed.isEmpty)

        let vocabulary = URL(fileURLWithPath: MirrorTreeFixture.modelFolder + "/vocab.txt")
        try #require(FileManager.default.fileExists(atPath: vocabulary.path), "scripts/fetch-model.sh puts the MiniLM vocabulary in models/")
        let context = try await app.context(for: "tidewater", vocabulary: vocabulary)
        #expect(!context.isEmpty)
        #expect(context.reduce(0) { $0 + $1.tokens } <= ContextBudget.passages)
        #expect(context.first?.hit.passageID == local.hits.first?.passageID)
    }

    /// Ending the iteration cancels the install: no outcome, nothing installed, and the home
    /// still opens (no lock left held).
    @Test func leavingTheEventLoopEarlyCancelsTheInstall() async throws {
        let tree = try PublishedCorpusTree(catalogID: "example", corpora: [
            .init(id: "tides", documents: PublishedCorpusTree.documents("tidewater ebbing", count: 3, seed: 2)),
        ])
        let origin = try tree.serve()
        defer { origin.stop() }
        let home = TempDirectory("example-cancel")
        let app = try CorpusAssistant(client: Self.client(home.path), catalogURL: origin.url, rootKey: String(contentsOfFile: tree.rootPub, encoding: .utf8))
        var events = 0
        for try await _ in app.client.installEvents([WantedCorpus(id: "tides")]) {
            events += 1
            break
        }
        #expect(events == 1)
        // Whatever the cancelled run got to, a second install completes and verifies.
        let outcomes = try #require(try await app.install("tides") { _ in })
        #expect(outcomes.map(\.kind) == [.installed] || outcomes.map(\.kind) == [.unchanged])
        #expect(try app.client.verify(nil).allSatisfy { $0.error == nil })
    }

    /// No total catalog deadline in-process: tests beside this one can hold the cooperative pool
    /// longer than 20 s on a loaded machine (the deadline is tested with the real binary).
    static func client(_ home: String) -> CorpusClient {
        var client = CorpusClient(home: HomeLayout(root: home))
        client.catalogDeadline = nil
        return client
    }

    @Test func docsLibraryShowsTheCompiledExample() throws {
        let source = try String(contentsOfFile: Self.packageRoot + "/Tests/LibraryExampleTests/LibraryExample.swift", encoding: .utf8)
        let page = try String(contentsOfFile: Self.packageRoot + "/docs/library.md", encoding: .utf8)
        let compiled = try #require(Self.between(source, "// BEGIN EXAMPLE\n", "// END EXAMPLE"))
        let shown = try #require(Self.between(page, "```swift\n", "```"))
        #expect(shown == compiled)
    }

    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        guard let a = text.range(of: start), let b = text.range(of: end, range: a.upperBound..<text.endIndex) else { return nil }
        return String(text[a.upperBound..<b.lowerBound])
    }
}

/// Progress lines collected from the example's callback.
final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
