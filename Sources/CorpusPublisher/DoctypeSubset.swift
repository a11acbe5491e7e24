extension IngestHTML {
    /// The document with the internal subset of its DOCTYPE (`<!DOCTYPE html [ … ]>`) cut out.
    ///
    /// libxml2's HTML parser does not read internal subsets: it ends the DOCTYPE at the first `>`
    /// and hands the rest of the declarations (entity values, comments) to the body as text, which
    /// was then indexed. XHTML files and EPUB chapters may carry one (DTD-era XHTML, entity
    /// declarations for `&nbsp;`); it is markup, never content. Only the prolog is looked at
    /// (an optional BOM, whitespace, the XML declaration, comments and processing instructions,
    /// then the DOCTYPE, XML 1.0 §2.8); the subset is skipped by the grammar of markup
    /// declarations: quoted literals, comments and processing instructions may hold `]` and `>`.
    /// An unterminated subset takes the rest of the document with it.
    static func withoutInternalSubset(_ bytes: [UInt8]) -> [UInt8] {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func at(_ s: String, caseInsensitive: Bool = false) -> Bool {
            let p = Array(s.utf8)
            guard i + p.count <= bytes.count else { return false }
            return zip(bytes[i..<(i + p.count)], p).allSatisfy { caseInsensitive ? lower($0) == lower($1) : $0 == $1 }
        }
        /// Moves past the next `end` (or to the end of the bytes).
        func skip(past end: String) {
            while i < bytes.count, !at(end) { i += 1 }
            i = min(bytes.count, i + end.utf8.count)
        }
        while true {
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            if at("<?") { skip(past: "?>") } else if at("<!--") { skip(past: "-->") } else { break }
        }
        guard at("<!DOCTYPE", caseInsensitive: true) else { return bytes }
        // Up to the subset's `[`, or the DOCTYPE's end when it has none.
        var quote: UInt8?
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote { if b == q { quote = nil } } else if b == 0x22 || b == 0x27 { quote = b } else if b == UInt8(ascii: ">") {
                return bytes
            } else if b == UInt8(ascii: "[") { break }
            i += 1
        }
        // A DOCTYPE that never ends (a truncated file, an unclosed quote) has no subset to cut:
        // the document is left to libxml2 as it is.
        guard i < bytes.count else { return bytes }
        let subsetStart = i
        i += 1
        while i < bytes.count {
            if quote == nil, at("<!--") { skip(past: "-->"); continue }
            if quote == nil, at("<?") { skip(past: "?>"); continue }
            let b = bytes[i]
            if let q = quote { if b == q { quote = nil } } else if b == 0x22 || b == 0x27 { quote = b } else if b == UInt8(ascii: "]") { break }
            i += 1
        }
        // The DOCTYPE's own `>` after the subset is kept.
        while i < bytes.count, bytes[i] != UInt8(ascii: ">") { i += 1 }
        return Array(bytes[..<subsetStart] + bytes[i...])
    }

    private static func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b | 0x20 : b }
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}
