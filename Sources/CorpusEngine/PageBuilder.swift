import CorpusFormat

/// One page of a document's text, built passage by passage in reading order: consecutive passages
/// of one section joined by a blank line, each passage's range recorded, and, for another app's own
/// chunks, the words a chunk shares with the one before cut as the importer cuts them
/// (`ChunkOverlap`). Passages a build split itself never overlap (`PassageSplitter` cuts between
/// paragraphs and sentences), so their text is joined exactly as stored.
struct PageBuilder {
    /// Cut overlaps (`ReadingOrder.sourceChunks`); else join the passages as they are.
    let cutsOverlap: Bool
    private(set) var sections: [DocumentText.Section] = []
    /// Passages on the page.
    private(set) var passages = 0
    /// Characters (Unicode scalars) of text on the page.
    private var characters = 0
    /// Unicode scalars in the current section's text.
    private var length = 0
    /// Where the current section's last words (at most `ChunkOverlap.maximumWords`) are in its text.
    private var tail: [(start: Int, end: Int)] = []
    /// The words of the last passage kept in the current section, as stored: what the next one is cut against.
    private var previous: [Substring]?

    init(cutsOverlap: Bool) {
        self.cutsOverlap = cutsOverlap
    }

    /// The page begins inside a section that began on an earlier page, after passage `text`.
    mutating func continueSection(_ section: String, after text: String) {
        sections.append(.init(title: section, text: "", passages: [], continues: true))
        if cutsOverlap { previous = ChunkOverlap.words(text) }
    }

    /// Adds the next passage unless it would take the page past `budget` characters; a page takes
    /// its first passage whatever its size, and a passage that adds no text (it lies inside the one
    /// before) whatever the budget, so no page starts with one. False when it was not added.
    mutating func add(id: String, section: String, text: String, budget: Int) -> Bool {
        let sameSection = sections.last?.title == section
        let words = cutsOverlap ? ChunkOverlap.words(text) : []
        var match = ChunkOverlap.Match.overlap(removedWords: 0)
        if cutsOverlap && words.isEmpty {
            match = .empty
        } else if cutsOverlap, sameSection, let previous {
            match = ChunkOverlap.match(words, after: previous)
        }
        var remainder = text
        switch match {
        case .inside, .empty: remainder = ""
        case let .overlap(q): if cutsOverlap { remainder = ChunkOverlap.trimmedText(text, from: words[q]) }
        }
        let added = remainder.scalarCount
        if case .inside = match {} else if passages > 0 && characters + added > budget { return false }
        if !sameSection {
            sections.append(.init(title: section, text: "", passages: []))
            length = 0
            tail = []
            previous = nil
        }
        let range: (start: Int, end: Int)
        switch match {
        case let .inside(n, after):
            range = insideRange(words: n, wordsAfter: after)
        case .empty:
            range = (length, length)
        case let .overlap(q):
            let last = sections.count - 1
            if !sections[last].text.isEmpty && !remainder.isEmpty {
                sections[last].text += DocumentText.passageSeparator
                length += DocumentText.passageSeparator.scalarCount
                characters += DocumentText.passageSeparator.scalarCount
            }
            let base = length
            sections[last].text += remainder
            length += added
            characters += added
            var start = base
            if cutsOverlap {
                if q > 0 && tail.count >= q { start = tail[tail.count - q].start }
                tail += Self.wordSpans(remainder, from: base)
                if tail.count > ChunkOverlap.maximumWords { tail.removeFirst(tail.count - ChunkOverlap.maximumWords) }
                previous = words
            }
            range = (start, length)
        }
        sections[sections.count - 1].passages.append(.init(id: id, start: range.start, end: range.end))
        passages += 1
        return true
    }

    /// The range of a passage whose `words` words are the previous passage's, `wordsAfter` words
    /// before its end: those words are the section text's last ones (the previous passage's own,
    /// and before its cut, the passage before it, which it began with).
    private func insideRange(words n: Int, wordsAfter after: Int) -> (start: Int, end: Int) {
        guard !tail.isEmpty else { return (length, length) }
        let end = tail.count - 1 - after
        let start = end - (n - 1)
        return (tail[min(max(0, start), tail.count - 1)].start, tail[min(max(0, end), tail.count - 1)].end)
    }

    /// Where each word (a run between whitespace, as `ChunkOverlap.words` splits) of `text` is,
    /// in Unicode scalars from `base`.
    static func wordSpans(_ text: String, from base: Int) -> [(start: Int, end: Int)] {
        var spans: [(start: Int, end: Int)] = []
        var offset = base
        var start: Int?
        for ch in text {
            if ch.isWhitespace {
                if let s = start { spans.append((s, offset)) }
                start = nil
            } else if start == nil {
                start = offset
            }
            offset += ch.unicodeScalars.count
        }
        if let s = start { spans.append((s, offset)) }
        return spans
    }
}
