/// One document as ingest sees it: a path, a title and its text grouped by section.
///
/// Ingesters produce these; the passage splitter turns them into passages. The text is
/// already plain (markup stripped, whitespace collapsed within each paragraph).
public struct SourceDocument: Hashable, Sendable {
    /// Relative to the source folder, `/`-separated; EPUB chapters are `book.epub#OEBPS/ch1.xhtml`.
    public var path: String
    public var title: String
    public var sections: [SourceSection]

    public init(path: String, title: String, sections: [SourceSection]) {
        self.path = path
        self.title = title
        self.sections = sections
    }

    /// True when no section holds any text.
    public var isEmpty: Bool { sections.allSatisfy { $0.paragraphs.isEmpty } }
}

/// The paragraphs under one heading path (empty path: text before the first heading).
public struct SourceSection: Hashable, Sendable {
    public var headings: [String]
    public var paragraphs: [String]

    public init(headings: [String], paragraphs: [String]) {
        self.headings = headings
        self.paragraphs = paragraphs
    }

    /// The section path as stored in packs: headings joined by ` > `.
    public var path: String { headings.joined(separator: " > ") }
}

/// A file the build did not use, and why.
public struct SkippedFile: Hashable, Sendable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
