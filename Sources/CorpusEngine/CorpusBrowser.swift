/// The browse seam: a corpus's documents and a document's text in reading order, wherever the
/// corpus is. `LocalBrowser` reads the home folder with the engine; `RemoteBrowser` (CorpusSync)
/// asks a catalog's server (`corpusd serve --search`), which runs the same engine over the same
/// corpora, so an app's Read and Browse modes work the same either way (docs/library.md).
public protocol CorpusBrowser: Sendable {
    /// Where its answers come from: `local` or `remote:NAME`.
    var origin: String { get }
    /// A page of corpus `corpus`'s documents (`id` or `catalog/id`), from the document at path `from`.
    func documents(corpus: String, from: String?) async throws -> DocumentList
    /// A page of a document's text: from its start, from `from` (a page's `next`), or landing on passage `at`.
    func read(corpus: String, document: String, at: String?, from: String?) async throws -> DocumentText
}

extension CorpusBrowser {
    /// The document from its start (or from the page landing on `at`) to its end, page after page:
    /// one document in memory, never the corpus.
    public func readToEnd(corpus: String, document: String, at: String? = nil) async throws -> DocumentText {
        var whole = try await read(corpus: corpus, document: document, at: at, from: nil)
        while let next = whole.next {
            try Task.checkCancellation()
            whole.append(try await read(corpus: corpus, document: document, at: nil, from: next))
        }
        return whole
    }
}
