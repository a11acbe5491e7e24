import Foundation
import CorpusFormat

/// `--from lumen`: the browser's library export (docs/import.md, "Browser"): a zip of Markdown
/// pages and `knowledge.json`. Each page becomes a document (split into passages like any
/// Markdown file), its url, domain, timestamp, summary and word count document metadata, its
/// highlights rows of the pack's `highlights` table.
enum BrowserExportImport {
    static let knowledgeLimit = 256 << 20

    struct Page: Decodable {
        var id: SourceID
        var url: String?
        var title: String?
        var domain: String?
        var timestamp: SourceTime?
        var summary: String?
        var wordCount: Int?
        var file: String?
        var embedding: [Double]?

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            self.id = try c.required(SourceID.self, "id")
            url = try c.first(String.self, "url")
            title = try c.first(String.self, "title")
            domain = try c.first(String.self, "domain")
            timestamp = try c.first(SourceTime.self, "timestamp", "saved_at", "savedAt", "created", "date")
            summary = try c.first(String.self, "summary")
            wordCount = try c.first(Int.self, "word_count", "wordCount", "words")
            file = try c.first(String.self, "file", "path", "markdown")
            embedding = try c.first([Double].self, "embedding")
        }
    }

    struct Highlight: Decodable {
        var page: SourceID
        var text: String
        var prefix: String?
        var suffix: String?
        var created: SourceTime?

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            self.page = try c.required(SourceID.self, "page", "page_id", "pageId")
            self.text = try c.required(String.self, "text")
            prefix = try c.first(String.self, "prefix")
            suffix = try c.first(String.self, "suffix")
            created = try c.first(SourceTime.self, "timestamp", "created", "created_at")
        }
    }

    struct Knowledge: Decodable {
        var title: String?
        var pages: [Page]
        var highlights: [Highlight]

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            title = try c.first(String.self, "title")
            self.pages = try c.required([Page].self, "pages")
            highlights = try c.first([Highlight].self, "highlights") ?? []
        }
    }

    static func load(path: String) throws -> ImportedCorpus {
        let source = ImportSource(format: .lumen, path: path)
        let (archive, root) = try source.openArchive()
        if BundleKind.classify(archive.names) == .corpusSync {
            throw source.bad("it is a CorpusSync bundle already (it holds corpus.json): import it with corpus import")
        }
        let bytes = try source.read(archive, "knowledge.json", root: root, limit: knowledgeLimit)
        // An array at the top is a list of pages; its errors are its own, not the object form's.
        let knowledge = ImportSource.firstJSONByte(bytes) == UInt8(ascii: "[")
            ? Knowledge(pages: try source.decode([Page].self, bytes, name: "knowledge.json"))
            : try source.decode(Knowledge.self, bytes, name: "knowledge.json")
        let files = try pageFiles(knowledge.pages, archive: archive, root: root, source: source)
        var corpus = ImportedCorpus(format: .lumen, documents: [], passages: [], sourceIDs: false)
        corpus.title = knowledge.title
        var pageDocument: [String: Int] = [:]
        for (page, file) in zip(knowledge.pages, files) {
            guard let d = try add(file, page: page, archive: archive, root: root, to: &corpus, source: source) else { continue }
            pageDocument[page.id.text] = d
        }
        let named = Set(files)
        let loose = archive.names.filter { $0.hasPrefix(root) }.map { String($0.dropFirst(root.count)) }
            .filter { !named.contains($0) && isMarkdown($0) }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        for file in loose { _ = try add(file, page: nil, archive: archive, root: root, to: &corpus, source: source) }
        if !loose.isEmpty { corpus.notes.append("\(loose.count) Markdown file(s) no page of knowledge.json names were imported without page metadata") }
        guard !corpus.passages.isEmpty else { throw source.bad("its pages hold no text") }
        corpus.highlights = try highlights(knowledge.highlights, pages: pageDocument, listed: Set(knowledge.pages.map(\.id.text)),
                                           corpus: corpus, source: source)
        if knowledge.pages.contains(where: { $0.embedding != nil }) {
            corpus.notes.append("dropped the pages' embeddings: one vector per page does not score a passage; the passages are embedded here")
        }
        return corpus
    }

    /// The Markdown member of each page: its `file`, else `<id>.md` or `pages/<id>.md`.
    static func pageFiles(_ pages: [Page], archive: ForeignArchive, root: String, source: ImportSource) throws -> [String] {
        var seen: [String: String] = [:]
        var pageOfID: [String: Int] = [:]
        var files: [String] = []
        for (n, page) in pages.enumerated() {
            try source.checkID(page.id.text, what: "page")
            if let other = pageOfID.updateValue(n, forKey: page.id.text) {
                throw source.bad("knowledge.json: page id \(page.id.text.debugDescription) is used twice (pages \(other) and \(n))")
            }
            let candidates = page.file.map { [$0] } ?? ["\(page.id.text).md", "pages/\(page.id.text).md"]
            guard let file = candidates.first(where: { archive.contains(root + $0) }) else {
                throw source.bad("knowledge.json: page \(n) (\(page.id.text.debugDescription)) names file \(candidates[0].debugDescription), which the export does not hold")
            }
            if let owner = seen.updateValue(page.id.text, forKey: file) {
                throw source.bad("knowledge.json: pages \(owner.debugDescription) and \(page.id.text.debugDescription) both name \(file)")
            }
            files.append(file)
        }
        return files
    }

    static func isMarkdown(_ name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "markdown"
    }

    /// Reads one page's Markdown into a document and its passages; nil when it holds no text.
    static func add(_ file: String, page: Page?, archive: ForeignArchive, root: String, to corpus: inout ImportedCorpus,
                    source: ImportSource) throws -> Int? {
        let bytes = try source.read(archive, file, root: root, limit: Ingest.maxTextFileBytes)
        guard let text = Text.decodeUTF8(bytes) else { throw source.bad("\(file) is not valid UTF-8 text") }
        try source.checkText(text, what: file)
        var document = IngestMarkdown.document(path: file, text: text)
        if let title = page?.title, !title.isEmpty { document.title = title }
        guard !document.isEmpty else {
            corpus.notes.append("\(file) holds no text and was left out")
            return nil
        }
        let d = corpus.documents.count
        corpus.documents.append(.init(path: file, title: document.title, meta: page.map(metadata) ?? [:]))
        corpus.passages += PassageSplitter.passages(of: document, document: d)
        return d
    }

    /// What the pack keeps about a page (docs/format.md, `document_meta`).
    static func metadata(_ page: Page) -> [String: String] {
        var meta = ["source_id": page.id.text]
        meta["url"] = page.url
        meta["domain"] = page.domain ?? page.url.flatMap { URL(string: $0)?.host }
        meta["timestamp"] = page.timestamp?.canonical
        meta["summary"] = page.summary
        meta["word_count"] = page.wordCount.map(String.init)
        return meta
    }

    /// The highlights, each tied to its page's document and to the first passage holding its text
    /// (preferring one that holds it with the text before it).
    /// - Parameters: pages: the document of each page that has one; listed: every page id.
    static func highlights(_ list: [Highlight], pages: [String: Int], listed: Set<String>, corpus: ImportedCorpus,
                           source: ImportSource) throws -> [ImportedCorpus.Highlight] {
        var byDocument: [Int: [Int]] = [:]
        for (i, p) in corpus.passages.enumerated() { byDocument[p.document, default: []].append(i) }
        return try list.enumerated().compactMap { n, h in
            let text = Text.collapseWhitespace(h.text)
            guard !text.isEmpty else { throw source.bad("knowledge.json: highlight \(n) has no text") }
            try source.checkText(h.text + (h.prefix ?? "") + (h.suffix ?? ""), what: "knowledge.json: highlight \(n)")
            guard listed.contains(h.page.text) else {
                throw source.bad("knowledge.json: highlight \(n) names page \(h.page.text.debugDescription), which knowledge.json's pages do not list")
            }
            // A page without text has no document, and its highlights nothing to point at.
            guard let d = pages[h.page.text] else { return nil }
            let candidates = byDocument[d, default: []].filter { corpus.passages[$0].text.contains(text) }
            let prefix = Text.collapseWhitespace(h.prefix ?? "")
            let withPrefix = prefix.isEmpty ? nil : candidates.first {
                corpus.passages[$0].text.contains(prefix + " " + text) || corpus.passages[$0].text.contains(prefix + text)
            }
            return .init(document: d, passage: withPrefix ?? candidates.first, text: h.text, prefix: h.prefix ?? "", suffix: h.suffix ?? "", created: h.created?.canonical)
        }
    }
}

extension BrowserExportImport.Knowledge {
    init(pages: [BrowserExportImport.Page]) {
        title = nil
        self.pages = pages
        highlights = []
    }
}
