/// Plain text (`.txt`): paragraphs are separated by blank lines; lines within one are joined.
///
/// The title is the first line when it is short and stands alone (a paragraph of its own),
/// else the file name.
enum IngestText {
    static let maxTitleLength = 120

    static func document(path: String, text: String) -> SourceDocument {
        var paragraphs = paragraphs(of: text)
        var title = Text.fileStem(path)
        if let first = paragraphs.first, first.lines == 1, first.text.count <= maxTitleLength {
            title = first.text
            paragraphs.removeFirst()
        }
        var collector = SectionCollector()
        for p in paragraphs { collector.paragraph(p.text) }
        return SourceDocument(path: path, title: title, sections: collector.finish())
    }

    /// Blank-line separated blocks, each with its whitespace collapsed and how many lines it had.
    static func paragraphs(of text: String) -> [(text: String, lines: Int)] {
        var out: [(String, Int)] = []
        var current: [Substring] = []
        func flush() {
            if !current.isEmpty {
                let joined = Text.collapseWhitespace(current.joined(separator: " "))
                if !joined.isEmpty { out.append((joined, current.count)) }
                current.removeAll()
            }
        }
        for line in Text.lines(text) {
            if Text.isBlank(line) { flush() } else { current.append(line) }
        }
        flush()
        return out
    }
}
