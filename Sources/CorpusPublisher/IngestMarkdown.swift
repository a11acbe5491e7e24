/// Markdown (`.md`, `.markdown`): one section per heading, markup stripped lightly.
///
/// ATX (`## Install`) and setext (underlined) headings open sections; the first H1 is the
/// document title and opens no section. Emphasis markers, backticks and link targets are
/// removed (`[text](url)` keeps `text`); fenced code is kept as text, newlines and all; list
/// items stay on their own lines. This is not a full CommonMark parser: it extracts text
/// for search, it does not render.
enum IngestMarkdown {
    static func document(path: String, text: String) -> SourceDocument {
        var reader = Reader()
        for line in Text.lines(text) { reader.take(line) }
        return reader.finish(path: path)
    }

    /// The document read so far, one line at a time: the sections collected, the paragraph being
    /// gathered, and the fenced code block it is inside, if any.
    private struct Reader {
        var collector = SectionCollector()
        var block: [Substring] = []
        var fence: (marker: Character, count: Int)?
        var code: [Substring] = []

        mutating func take(_ line: Substring) {
            let trimmed = line.drop(while: { $0 == " " })
            if let open = fence {
                if let close = IngestMarkdown.fenceMarker(trimmed), close.marker == open.marker, close.count >= open.count,
                   trimmed.dropFirst(close.count).allSatisfy(\.isWhitespace) {
                    collector.paragraph(code.joined(separator: "\n"))
                    code.removeAll()
                    fence = nil
                } else {
                    code.append(line)
                }
                return
            }
            // Only spaces were dropped, one byte each: counting bytes counts them without grapheme breaking.
            if line.utf8.count - trimmed.utf8.count <= 3, let marker = IngestMarkdown.fenceMarker(trimmed) {
                flushBlock()
                fence = marker
            } else if trimmed.utf8.first == UInt8(ascii: "#"), let (level, text) = IngestMarkdown.atxHeading(trimmed) {
                heading(level, text)
            } else if Text.isBlank(trimmed) {
                flushBlock()
            } else if block.count == 1, let level = IngestMarkdown.setextLevel(trimmed), !IngestMarkdown.isListItem(block[0]) {
                let text = String(block[0])
                block.removeAll()
                heading(level, text)
            } else if IngestMarkdown.isRule(trimmed) || IngestMarkdown.isLinkDefinition(trimmed) {
                flushBlock()
            } else {
                block.append(line)
            }
        }

        mutating func finish(path: String) -> SourceDocument {
            if !code.isEmpty { collector.paragraph(code.joined(separator: "\n")) }
            flushBlock()
            return SourceDocument(path: path, title: collector.firstH1 ?? Text.fileStem(path), sections: collector.finish())
        }

        private mutating func flushBlock() {
            guard !block.isEmpty else { return }
            collector.paragraph(IngestMarkdown.renderBlock(block))
            block.removeAll()
        }

        private mutating func heading(_ level: Int, _ raw: String) {
            flushBlock()
            collector.titleOrHeading(level: level, Text.collapseWhitespace(IngestMarkdown.stripInline(raw)))
        }
    }

    /// A block of lines as one paragraph: list items on their own lines, prose joined by spaces.
    static func renderBlock(_ lines: [Substring]) -> String {
        var out: [String] = []
        for raw in lines {
            var line = raw.drop(while: { $0 == " " })
            while line.hasPrefix(">") { line = line.dropFirst().drop(while: { $0 == " " }) }
            let text = Text.collapseWhitespace(hasInlineMarkup(line) ? stripInline(String(line)) : String(line))
            if text.isEmpty { continue }
            if isListItem(line) || out.isEmpty {
                out.append(text)
            } else {
                out[out.count - 1] += " " + text
            }
        }
        return out.joined(separator: "\n")
    }

    static func fenceMarker(_ s: Substring) -> (marker: Character, count: Int)? {
        guard let c = s.first, c == "`" || c == "~" else { return nil }
        let n = s.prefix(while: { $0 == c }).count
        return n >= 3 ? (c, n) : nil
    }

    static func atxHeading(_ s: Substring) -> (Int, String)? {
        let level = s.prefix(while: { $0 == "#" }).count
        guard (1...6).contains(level) else { return nil }
        let rest = s.dropFirst(level)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.trimming(" \t")
        // A closing sequence of #s is not part of the heading.
        let closing = text.reversed().prefix(while: { $0 == "#" }).count
        if closing > 0 {
            let head = text.dropLast(closing)
            if head.isEmpty || head.last == " " { text = head.trimming(" \t") }
        }
        return (level, text)
    }

    static func setextLevel(_ s: Substring) -> Int? {
        guard let first = s.utf8.first, first == UInt8(ascii: "=") || first == UInt8(ascii: "-") else { return nil }
        let t = s.trimming(" \t")
        guard let c = t.first, (c == "=" || c == "-"), t.allSatisfy({ $0 == c }) else { return nil }
        return c == "=" ? 1 : 2
    }

    static func isRule(_ s: Substring) -> Bool {
        guard let first = s.utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "*") || first == UInt8(ascii: "_") else { return false }
        let t = s.filter { $0 != " " && $0 != "\t" }
        guard let c = t.first, "-*_".contains(c), t.count >= 3 else { return false }
        return t.allSatisfy { $0 == c }
    }

    static func isLinkDefinition(_ s: Substring) -> Bool {
        guard s.utf8.first == UInt8(ascii: "["), s.hasPrefix("["), let close = s.firstIndex(of: "]") else { return false }
        return s[s.index(after: close)...].hasPrefix(":")
    }

    static func isListItem(_ s: Substring) -> Bool {
        let t = s.drop(while: { $0 == " " })
        if let c = t.first, "-*+".contains(c) { return t.dropFirst().first == " " }
        let digits = t.prefix(while: { $0.isASCII && $0.isNumber })
        guard (1...9).contains(digits.count) else { return false }
        let rest = t.dropFirst(digits.count)
        return (rest.first == "." || rest.first == ")") && rest.dropFirst().first == " "
    }

    /// True when a line holds a byte inline markup starts with; most prose lines hold none.
    static func hasInlineMarkup(_ s: Substring) -> Bool {
        s.utf8.contains { b in
            b == UInt8(ascii: "*") || b == UInt8(ascii: "_") || b == UInt8(ascii: "[") || b == UInt8(ascii: "<")
                || b == UInt8(ascii: "`") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "!")
        }
    }

    /// Removes inline markup: images and links keep their text, autolinks their URL; code-span
    /// backticks, emphasis markers and backslash escapes go.
    static func stripInline(_ s: String) -> String {
        let chars = Array(s)
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var i = 0
        func isWordChar(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber } ?? false }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "\\" where i + 1 < chars.count && (chars[i + 1].isPunctuation || chars[i + 1].isSymbol):
                out.append(chars[i + 1])
                i += 2
            case "!" where i + 1 < chars.count && chars[i + 1] == "[":
                if let (text, next) = link(chars, at: i + 1) { out += stripInline(text); i = next } else { out.append(c); i += 1 }
            case "[":
                if let (text, next) = link(chars, at: i) { out += stripInline(text); i = next } else { out.append(c); i += 1 }
            case "<":
                if let end = chars[i...].firstIndex(of: ">"), end > i + 1 {
                    let inner = String(chars[(i + 1)..<end])
                    if inner.hasPrefix("http://") || inner.hasPrefix("https://") || inner.hasPrefix("mailto:") {
                        out += inner
                        i = end + 1
                        continue
                    }
                }
                out.append(c)
                i += 1
            case "`":
                i += 1
            case "*", "_":
                let run = chars[i...].prefix(while: { $0 == c }).count
                let before = i > 0 ? chars[i - 1] : nil
                let after = i + run < chars.count ? chars[i + run] : nil
                // snake_case and 2 * 3 keep their characters; emphasis delimiters touch a word on one side only.
                let intraword = isWordChar(before) && isWordChar(after)
                let spaced = (before?.isWhitespace ?? true) && (after?.isWhitespace ?? true)
                if intraword && c == "_" || spaced {
                    out += String(repeating: c, count: run)
                }
                i += run
            default:
                out.append(c)
                i += 1
            }
        }
        return out
    }

    /// `[text](target)` or `[text][ref]` starting at `start` (the `[`): the text and the index after the link.
    static func link(_ chars: [Character], at start: Int) -> (String, Int)? {
        var depth = 0
        var j = start
        while j < chars.count {
            if chars[j] == "[" { depth += 1 }
            if chars[j] == "]" { depth -= 1; if depth == 0 { break } }
            j += 1
        }
        guard j < chars.count, j + 1 < chars.count else { return nil }
        let text = String(chars[(start + 1)..<j])
        let open = chars[j + 1], closeChar: Character
        switch open {
        case "(": closeChar = ")"
        case "[": closeChar = "]"
        default: return nil
        }
        guard let end = chars[(j + 2)...].firstIndex(of: closeChar) else { return nil }
        return (text, end + 1)
    }
}

extension Substring {
    /// Drops the characters in `set` from both ends.
    func trimming(_ set: String) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension String {
    func trimming(_ set: String) -> String { self[...].trimming(set) }
}
