/// HTML and XHTML (`.html`, `.htm`, `.xhtml`, EPUB chapters) through libxml2's HTML parser.
///
/// The walk drops what is not content (scripts, styles, navigation, headers, footers,
/// asides, `role="navigation"`), opens a section at every h1–h6 (the first h1 is the
/// document heading), and collapses whitespace within each block. Entities are decoded
/// by libxml2.
enum IngestHTML {
    static let dropped: Set<String> = ["script", "style", "nav", "header", "footer", "aside", "noscript", "template",
                                       "head", "iframe", "object", "svg", "math", "button", "select", "form"]
    static let blocks: Set<String> = ["p", "div", "li", "ul", "ol", "dl", "dt", "dd", "pre", "blockquote", "section",
                                      "article", "main", "table", "tr", "thead", "tbody", "figure",
                                      "figcaption", "address", "details", "summary", "hr", "br", "body", "caption"]

    struct Extracted {
        var title: String?
        var firstH1: String?
        var sections: [SourceSection]
    }

    static func document(path: String, bytes: [UInt8]) throws(IngestFailure) -> SourceDocument {
        let e = try extract(bytes)
        return SourceDocument(path: path, title: e.title ?? e.firstH1 ?? Text.fileStem(path), sections: e.sections)
    }

    static func extract(_ bytes: [UInt8]) throws(IngestFailure) -> Extracted {
        let tree: XMLTree
        do { tree = try XMLTree(withoutInternalSubset(bytes), flavor: .html) } catch {
            switch error {
            case .unparsable: throw IngestFailure("libxml2 could not parse it as HTML")
            case .nestingTooDeep: throw IngestFailure("nesting too deep: libxml2 stops at \(XMLTree.maxDepth) levels of elements")
            }
        }
        // Nodes borrow the tree's memory: keep it alive while they are read.
        defer { withExtendedLifetime(tree) {} }
        var walker = Walker()
        if let root = tree.root {
            // <title> lives in <head>, which the body walk skips.
            if let t = root.descendants(named: "title").first {
                let title = Text.collapseWhitespace(t.textContent)
                if !title.isEmpty { walker.title = title }
            }
            walker.walk(root)
        }
        walker.flush()
        return Extracted(title: walker.title, firstH1: walker.collector.firstH1, sections: walker.collector.finish())
    }

    struct Walker {
        var collector = SectionCollector()
        var buffer = ""
        var title: String?

        mutating func flush() {
            let text = Text.collapseWhitespace(buffer)
            if !text.isEmpty { collector.paragraph(text) }
            buffer = ""
        }

        static func isDropped(_ node: XMLNode) -> Bool {
            IngestHTML.dropped.contains(node.name) || node.attribute("role")?.lowercased() == "navigation" || node.attribute("hidden") != nil
        }

        /// Text of a heading, skipping dropped descendants.
        static func visibleText(_ node: XMLNode) -> String {
            if node.isText { return node.content }
            guard node.isElement, !isDropped(node) else { return "" }
            let inner = node.children.map(visibleText).joined()
            return node.name == "br" ? " " : inner
        }

        mutating func walk(_ node: XMLNode) {
            for child in node.children {
                if child.isText {
                    buffer += child.content
                    continue
                }
                guard child.isElement, !Self.isDropped(child) else { continue }
                let name = child.name
                if name.count == 2, name.first == "h", let level = Int(String(name.last!)), (1...6).contains(level) {
                    flush()
                    collector.titleOrHeading(level: level, Text.collapseWhitespace(Self.visibleText(child)))
                } else if IngestHTML.blocks.contains(name) {
                    flush()
                    walk(child)
                    flush()
                } else {
                    // Inline elements (a, em, span, …) continue the current block; a space keeps
                    // words in adjacent cells or spans apart where the markup had no whitespace.
                    walk(child)
                    if name == "td" || name == "th" || name == "img" { buffer += " " }
                }
            }
        }
    }
}

/// Why one file could not be ingested; it becomes a `SkippedFile`.
struct IngestFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
