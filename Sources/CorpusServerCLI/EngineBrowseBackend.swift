import Foundation
import CorpusEngine
import CorpusServer

/// `corpusd serve --search HOME`'s `GET /v1/documents` and `GET /v1/read`: the engine's
/// `LocalBrowser` over the same library the search uses, answering exactly what `corpus documents
/// --json` and `corpus read --json` print there (the same pages, the same types).
struct EngineBrowseBackend: BrowseBackend {
    let browser: LocalBrowser

    init(library: CorpusLibrary) {
        browser = LocalBrowser(library: library)
    }

    func browsable() -> Set<String> { browser.library.installedIDs() }

    func documents(corpus: String, from: String?) throws(BrowseRefusal) -> [UInt8] {
        try answer { try browser.open(corpus).documents(from: from).encoded() }
    }

    func read(corpus: String, document: String, at: String?, from: String?) throws(BrowseRefusal) -> [UInt8] {
        try answer { try browser.open(corpus).read(document: document, at: at, from: from).encoded() }
    }

    /// The body `work` encodes, or the refusal its engine error is: a document or passage the
    /// corpus does not hold is 404 with the engine's line, a request no pack path fits is 400.
    private func answer(_ work: () throws -> Data) throws(BrowseRefusal) -> [UInt8] {
        do {
            return Array(try work())
        } catch let e as EngineError {
            switch e {
            case .documentNotFound, .passageNotFound, .corpusNotFound: throw .notFound(e.description)
            case .invalidBrowseRequest: throw .badRequest(e.description)
            default: throw .failed
            }
        } catch {
            throw .failed
        }
    }
}
