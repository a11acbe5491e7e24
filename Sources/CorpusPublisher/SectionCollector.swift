/// Groups paragraphs under heading paths while an ingester walks a document top to bottom.
///
/// A heading of level L closes the headings of level L and deeper, then opens itself, so
/// `## Install` then `### Linux` gives the path `Install > Linux`. The document's own title
/// heading (its first H1) is not part of any path: the title is stored separately.
struct SectionCollector {
    private var sections: [SourceSection] = []
    private var stack: [(level: Int, text: String)] = []
    private var paragraphs: [String] = []

    /// Starts a section under a heading of `level` (1–6).
    mutating func heading(level: Int, _ text: String) {
        flush()
        while let last = stack.last, last.level >= level { stack.removeLast() }
        let clean = Text.collapseWhitespace(text)
        if !clean.isEmpty { stack.append((level, clean)) }
    }

    /// The document heading: text after it belongs to no section.
    mutating func documentHeading() {
        flush()
        stack.removeAll()
    }

    /// The text of the document's first H1, which the ingesters take as its title.
    private(set) var firstH1: String?

    /// A heading as the Markdown and HTML ingesters read it: the first H1 is the document's title
    /// (`firstH1`) and opens no section; every other heading opens one.
    mutating func titleOrHeading(level: Int, _ text: String) {
        if level == 1 && firstH1 == nil {
            firstH1 = text
            documentHeading()
        } else {
            heading(level: level, text)
        }
    }

    /// Adds a paragraph of already-plain text; blank ones are dropped.
    mutating func paragraph(_ text: String) {
        if Text.hasContent(text) { paragraphs.append(text) }
    }

    private mutating func flush() {
        guard !paragraphs.isEmpty else { return }
        let headings = stack.map(\.text)
        // Two runs of text under the same path (e.g. split by an empty subheading) stay one section.
        if let last = sections.last, last.headings == headings {
            sections[sections.count - 1].paragraphs += paragraphs
        } else {
            sections.append(SourceSection(headings: headings, paragraphs: paragraphs))
        }
        paragraphs.removeAll()
    }

    mutating func finish() -> [SourceSection] {
        flush()
        return sections
    }
}
