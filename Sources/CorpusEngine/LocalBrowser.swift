/// The corpora installed in a home folder, browsed by the engine in this process.
public struct LocalBrowser: CorpusBrowser {
    public let library: CorpusLibrary
    /// Characters (Unicode scalars) per read page; the server's pages are `InstalledCorpus.pageCharacters`.
    public var pageCharacters = InstalledCorpus.pageCharacters
    public var origin: String { "local" }

    public init(library: CorpusLibrary) { self.library = library }

    public func documents(corpus: String, from: String?) async throws -> DocumentList {
        try open(corpus).documents(from: from)
    }

    public func read(corpus: String, document: String, at: String?, from: String?) async throws -> DocumentText {
        try open(corpus).read(document: document, at: at, from: from, characters: pageCharacters)
    }

    /// Where passage `passage` of corpus `corpus` sits (a search hit's document, section and place).
    public func locate(corpus: String, passage: String) async throws -> PassageLocation {
        try open(corpus).locate(passage: passage)
    }

    /// The one installed corpus `name` (`id` or `catalog/id`) names, opened.
    public func open(_ name: String) throws -> InstalledCorpus {
        let (open, skipped) = try library.select([name])
        let names = open.map(\.name) + skipped.map(\.name)
        // Gone between the listing and the open (a removal by another process): not installed.
        if names.isEmpty { throw EngineError.corpusNotFound(name) }
        guard names.count == 1 else { throw EngineError.corpusAmbiguous(name, candidates: names.sorted()) }
        if let failed = skipped.first { throw failed.error }
        return open[0]
    }
}
