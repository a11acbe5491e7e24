import CorpusFormat

/// A document's text in reading order, a page of it: what `corpus read --json` prints and `GET
/// /v1/read` answers (docs/cli.md). Each section's `text` is its passages joined by a blank line,
/// with the overlap of another app's chunks removed (docs/engine.md "Reading a document"); each
/// passage carries the range of `text` that holds it, in Unicode scalars from the section's start,
/// so an app can scroll to a search hit.
public struct DocumentText: WireJSON, Equatable {
    public struct PassageRange: Codable, Sendable, Equatable {
        public var id: String
        /// Unicode scalars (code points) from the start of the section's `text`; `end` exclusive.
        public var start: Int
        public var end: Int

        public init(id: String, start: Int, end: Int) {
            self.id = id
            self.start = start
            self.end = end
        }
    }

    public struct Section: Codable, Sendable, Equatable {
        /// The heading path, `' > '`-separated; `""` before the first heading.
        public var title: String
        public var text: String
        public var passages: [PassageRange]
        /// True when the section began on the page before (absent otherwise).
        public var continues: Bool?

        public init(title: String, text: String, passages: [PassageRange], continues: Bool? = nil) {
            self.title = title
            self.text = text
            self.passages = passages
            self.continues = continues
        }
    }

    /// The document's path in its corpus.
    public var document: String
    public var title: String
    public var sections: [Section]
    /// The passage id the next page starts at (`--from`, `&from=`); absent on the last page.
    public var next: String?

    public init(document: String, title: String, sections: [Section], next: String?) {
        self.document = document
        self.title = title
        self.sections = sections
        self.next = next
    }

    /// The separator between two passages' text in a section.
    public static let passageSeparator = "\n\n"

    /// This page followed by `page`, the one its `next` names: a section continued there is joined
    /// to its start here as one page would have joined it, its ranges moved along.
    public mutating func append(_ page: DocumentText) {
        var rest = page.sections[...]
        if let first = rest.first, first.continues == true, var last = sections.popLast() {
            let separator = last.text.isEmpty || first.text.isEmpty ? "" : Self.passageSeparator
            let shift = last.text.scalarCount + separator.scalarCount
            last.text += separator + first.text
            last.passages += first.passages.map { PassageRange(id: $0.id, start: $0.start + shift, end: $0.end + shift) }
            sections.append(last)
            rest = rest.dropFirst()
        }
        sections += rest
        next = page.next
    }
}
