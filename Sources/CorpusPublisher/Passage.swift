import CorpusFormat

/// One searchable passage, as it goes into the pack and the vector file.
public struct Passage: Hashable, Sendable {
    /// Index into the build's document list.
    public var document: Int
    /// Stable id (`PassageID.make`).
    public var pid: String
    /// 0-based position in the document, across sections.
    public var ordinal: Int
    /// The document title, repeated for search and display.
    public var title: String
    /// Heading path, ` > `-separated; empty before the first heading.
    public var section: String
    public var text: String
}

/// Splits documents into passages: at section boundaries first, then by paragraphs up to a cap.
///
/// Consecutive paragraphs of one section are merged while they fit under `maxLength`
/// characters (Unicode scalars). A longer paragraph is cut at sentence ends, a longer sentence
/// between words, and only a single "word" longer than the cap (a URL, unspaced CJK text) is
/// cut inside. The passage id uses the ordinal within the section, so editing one section does
/// not change the ids of the passages of another.
public enum PassageSplitter {
    public static let maxLength = 1_000

    public static func passages(of doc: SourceDocument, document: Int, maxLength: Int = maxLength) -> [Passage] {
        var out: [Passage] = []
        for section in doc.sections {
            let path = section.path
            for (n, text) in chunks(section.paragraphs, maxLength: maxLength).enumerated() {
                let pid = PassageID.make(documentPath: doc.path, section: path, ordinal: n, text: text)
                out.append(Passage(document: document, pid: pid, ordinal: out.count, title: doc.title, section: path, text: text))
            }
        }
        return out
    }

    /// Groups paragraphs into chunks of at most `maxLength` scalars, joined by blank lines.
    static func chunks(_ paragraphs: [String], maxLength: Int) -> [String] {
        var out: [String] = []
        var current = ""
        var currentLength = 0
        func emit() {
            if !current.isEmpty { out.append(current) }
            current = ""
            currentLength = 0
        }
        for p in paragraphs {
            let length = p.scalarCount
            if length > maxLength {
                emit()
                out += split(p, maxLength: maxLength)
                continue
            }
            if currentLength > 0 && currentLength + 2 + length > maxLength { emit() }
            if currentLength > 0 {
                current += "\n\n"
                currentLength += 2
            }
            current += p
            currentLength += length
        }
        emit()
        return out
    }

    /// Cuts one long paragraph at sentence ends, then between words, then (last resort) inside a word.
    static func split(_ text: String, maxLength: Int) -> [String] {
        pack(sentences(text), separator: " ", maxLength: maxLength) { sentence in
            pack(sentence.split(whereSeparator: \.isWhitespace).map(String.init), separator: " ", maxLength: maxLength) { word in
                hardSplit(word, maxLength: maxLength)
            }
        }
    }

    /// Greedily joins pieces up to `maxLength`; a piece that alone is too long goes through `oversized`.
    static func pack(_ pieces: [String], separator: String, maxLength: Int, oversized: (String) -> [String]) -> [String] {
        var out: [String] = []
        var current: [String] = []
        var length = 0
        func emit() {
            if !current.isEmpty { out.append(current.joined(separator: separator)) }
            current.removeAll()
            length = 0
        }
        for piece in pieces {
            let n = piece.scalarCount
            if n > maxLength {
                emit()
                out += oversized(piece)
                continue
            }
            if length > 0 && length + separator.unicodeScalars.count + n > maxLength { emit() }
            if length > 0 { length += separator.unicodeScalars.count }
            current.append(piece)
            length += n
        }
        emit()
        return out
    }

    /// Sentences: split after `.`, `!`, `?` followed by whitespace, and after CJK full stops.
    static func sentences(_ text: String) -> [String] {
        var out: [String] = []
        var current = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        for (i, u) in scalars.enumerated() {
            current.append(u)
            let next = i + 1 < scalars.count ? scalars[i + 1] : nil
            let western = ".!?".unicodeScalars.contains(u) && (next?.properties.isWhitespace ?? true)
            let cjk = "。！？".unicodeScalars.contains(u)
            if western || cjk {
                let s = String(current).trimming(" \t\n")
                if !s.isEmpty { out.append(s) }
                current = String.UnicodeScalarView()
            }
        }
        let rest = String(current).trimming(" \t\n")
        if !rest.isEmpty { out.append(rest) }
        return out
    }

    /// Cuts at every `maxLength` scalars, moving each cut back to a character boundary.
    static func hardSplit(_ word: String, maxLength: Int) -> [String] {
        var out: [String] = []
        var current = ""
        var length = 0
        for ch in word {
            let n = ch.unicodeScalars.count
            if length + n > maxLength && !current.isEmpty {
                out.append(current)
                current = ""
                length = 0
            }
            current.append(ch)
            length += n
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
