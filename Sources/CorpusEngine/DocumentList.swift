/// A page of a corpus's documents, in the pack's document order: what `corpus documents --json`
/// prints and `GET /v1/documents` answers (docs/cli.md), one type for both.
public struct DocumentList: WireJSON, Equatable {
    /// A section of a document: its heading path (`""` before the first heading) and its first passage.
    public struct Section: Codable, Sendable, Equatable {
        public var title: String
        public var passage: String

        public init(title: String, passage: String) {
            self.title = title
            self.passage = passage
        }
    }

    public struct Document: Codable, Sendable, Equatable {
        public var path: String
        public var title: String
        public var sections: [Section]
        /// How many passages it holds.
        public var passages: Int
        /// `document_meta` `timestamp` (`YYYY-MM-DDTHH:MM:SSZ`), where the corpus has one.
        public var time: String?
        /// What the source app filed it under, where the corpus says (docs/import.md "Browsing"):
        /// the knowledge app's genre, the browser's website (domain).
        public var group: String?

        public init(path: String, title: String, sections: [Section], passages: Int, time: String? = nil, group: String? = nil) {
            self.path = path
            self.title = title
            self.sections = sections
            self.passages = passages
            self.time = time
            self.group = group
        }
    }

    public var documents: [Document]
    /// The path of the first document of the next page (`--from`, `&from=`); absent on the last page.
    public var next: String?

    public init(documents: [Document], next: String?) {
        self.documents = documents
        self.next = next
    }
}
