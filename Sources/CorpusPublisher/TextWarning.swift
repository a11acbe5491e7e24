import CorpusFormat

/// A field whose text holds characters a terminal would act on (`TerminalText`): ESC/CSI/OSC
/// sequences, other controls, bidi overrides. Such text is published as data, unchanged (clients
/// render it through `TerminalText`); the publisher only warns, so an operator notices a title
/// that would repaint a reader's terminal or reorder what it shows.
///
/// Single-line fields (titles, licenses, languages, paths) warn on a newline too; descriptions and
/// document text may hold newlines and tabs.
public struct TextWarning: Hashable, Sendable {
    /// Whose field it is: `catalog ID`, `corpus ID`, or `corpus ID, document PATH`.
    public var owner: String
    /// `title`, `description`, `license`, `language`, `path` or `text`.
    public var field: String
    /// The text as `TerminalText.sanitizeLine` renders it, cut to `excerptLength` characters: safe to print.
    public var rendered: String

    static let excerptLength = 120

    init(owner: String, field: String, text: String) {
        self.owner = owner
        self.field = field
        let line = TerminalText.sanitizeLine(text)
        rendered = line.count > Self.excerptLength ? String(line.prefix(Self.excerptLength)) + "…" : line
    }

    static func isUnsafe(_ text: String, singleLine: Bool) -> Bool {
        TerminalText.containsUnsafe(text) || (singleLine && text.unicodeScalars.contains("\n"))
    }

    /// The catalog's title and every entry's title, description, license and language, as published.
    static func catalogFields(_ catalog: Catalog) -> [TextWarning] {
        var out: [TextWarning] = []
        if isUnsafe(catalog.title, singleLine: true) { out.append(TextWarning(owner: "catalog \(catalog.id)", field: "title", text: catalog.title)) }
        for e in catalog.corpora {
            out += corpusFields(id: e.id, title: e.title, description: e.description, license: e.license, language: e.language)
        }
        return out
    }

    /// A corpus's title, description, license and language (a catalog entry's, or a manifest's).
    public static func corpusFields(id: String, title: String, description: String, license: String, language: String) -> [TextWarning] {
        [("title", title, true), ("description", description, false), ("license", license, true), ("language", language, true)]
            .filter { isUnsafe($0.1, singleLine: $0.2) }
            .map { TextWarning(owner: "corpus \(id)", field: $0.0, text: $0.1) }
    }

    /// A document's path, title and text (section headings and paragraphs; the excerpt is the first
    /// one that holds such characters).
    static func document(_ doc: SourceDocument, corpus: String) -> [TextWarning] {
        document(path: doc.path, title: doc.title, texts: doc.sections.lazy.flatMap { $0.headings + $0.paragraphs }, corpus: corpus)
    }

    /// The same for a document given as its path, title and texts (an imported one: its sections
    /// and passages).
    static func document<S: Sequence>(path: String, title: String, texts: S, corpus: String) -> [TextWarning] where S.Element == String {
        let owner = "corpus \(corpus), document \(TerminalText.sanitizeLine(path))"
        var out: [TextWarning] = []
        if isUnsafe(path, singleLine: true) { out.append(TextWarning(owner: owner, field: "path", text: path)) }
        if isUnsafe(title, singleLine: true) { out.append(TextWarning(owner: owner, field: "title", text: title)) }
        if let first = texts.first(where: { isUnsafe($0, singleLine: false) }) {
            out.append(TextWarning(owner: owner, field: "text", text: first))
        }
        return out
    }
}
