/// Where a passage sits (every search hit names one): its document, its section and its place in
/// the document's reading order; `read(document, at: passage)` opens the page that holds it.
public struct PassageLocation: WireJSON, Equatable {
    public var passage: String
    /// The document's path and title.
    public var document: String
    public var title: String
    /// The section's heading path, `""` before the first heading.
    public var section: String
    /// 0-based: the passage's place among the document's passages, in reading order.
    public var position: Int

    public init(passage: String, document: String, title: String, section: String, position: Int) {
        self.passage = passage
        self.document = document
        self.title = title
        self.section = section
        self.position = position
    }
}
