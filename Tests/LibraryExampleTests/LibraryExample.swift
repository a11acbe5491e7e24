// The example of docs/library.md, compiled and run by LibraryExampleTests: the text between the
// two marker lines must equal the Swift block of that page (a test compares them).
// BEGIN EXAMPLE
import Foundation
import CorpusFormat
import CorpusSync
import CorpusEngine

/// What an app does with the library: search a catalog over the network until its corpus is
/// installed, install it with a progress view, keep it current, then search on the device and
/// fit the best passages into a small model's context window.
struct CorpusAssistant {
    let client: CorpusClient
    var home: String { client.home.root }

    /// `client` is the app's, configured as it likes: `CorpusClient(home: HomeLayout(root: folder))`
    /// with retries, timeouts and a catalog deadline (`catalogDeadline`, 20 s unless set).
    init(client: CorpusClient, catalogURL: String, rootKey: String) throws {
        self.client = client
        if try client.config().remotes.isEmpty {
            // The publisher's root key, pinned: every catalog and bundle must verify against it.
            _ = try client.addRemote(name: "main", url: catalogURL, mirrors: [], trust: PublicKey(text: rootKey))
        }
    }

    /// Before anything is installed: the catalog's search server (`corpusd serve --search`)
    /// ranks exactly as local search will.
    func searchRemotely(_ question: String) async throws -> SearchReport {
        let remote = try client.config().remotes[0]
        let retriever: any Retriever = RemoteRetriever(remote: remote, token: nil, configuration: client.httpConfiguration)
        return try await retriever.search(question, options: SearchOptions())
    }

    /// Read mode: the document a search hit is in, as its text in reading order (overlap removed),
    /// opened at the hit's section; from the catalog's server before the corpus is installed, on
    /// the device after: the same page either way.
    func open(_ hit: Hit, installed: Bool) async throws -> DocumentText {
        let browser: any CorpusBrowser = installed ? LocalBrowser(library: CorpusLibrary(home: home))
            : RemoteBrowser(remote: try client.config().remotes[0], token: nil, configuration: client.httpConfiguration)
        return try await browser.read(corpus: hit.corpus, document: hit.document, at: hit.passageID, from: nil)
    }

    /// Installs `id`, reporting progress as it comes; returns what changed. A report whose
    /// `unrefreshed` is not empty was decided from a catalog accepted earlier: say so, never "up to date".
    func install(_ id: String, progress: (String) -> Void) async throws -> OperationReport? {
        for try await event in client.installEvents([WantedCorpus(id: id)]) {
            switch event {
            case .progress(.downloading(let name, let p)): progress("\(name): \(p.bytesDone) of \(p.total) bytes")
            case .progress(.verifying(let name)): progress("\(name): verifying")
            case .progress(.installed(let name, let version)): progress("\(name) \(version) installed")
            case .finished(let report): return report
            }
        }
        return nil
    }

    /// Brings every installed corpus to its catalog's latest (a delta when one is published).
    func update() async throws -> OperationReport? {
        var report: OperationReport?
        for try await case .finished(let done) in client.syncEvents(wanted: nil, prune: false) { report = done }
        return report
    }

    /// On the device: every installed corpus at once, then the passages that fit a 4,096-token
    /// window's share for passages, counted with the model's WordPiece vocabulary.
    func context(for question: String, vocabulary: URL) async throws -> [ContextBudget.Passage] {
        let retriever: any Retriever = LocalRetriever(library: CorpusLibrary(home: home))
        let report = try await retriever.search(question, options: SearchOptions())
        let budget = ContextBudget(tokenizer: try WordPieceTokenizer(vocabularyFile: vocabulary))
        return budget.fit(report.hits, budget: ContextBudget.passages)
    }
}
// END EXAMPLE
