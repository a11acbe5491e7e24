import Foundation
import CorpusFormat

/// `corpus search --exact "PHRASE"`, the reader app's Find: passages holding the phrase
/// literally. FTS5 finds candidates with a phrase query over the phrase's words (fast, but its
/// tokenizer stems and folds case and accents, so "rotating the lamp" also matches "rotate the
/// lamp"); each candidate is then kept only if its text holds the phrase itself, ignoring case
/// only. Ranked by BM25 within a corpus; corpora interleave by that rank.
extension CorpusLibrary {
    /// How many FTS5 candidates per corpus are confirmed; a phrase is specific, so this is ample.
    static let exactCandidates = 2000

    public func findExact(_ phrase: String, options: SearchOptions = SearchOptions()) async throws -> SearchReport {
        try Task.checkCancellation()
        let literal = phrase.trimmingCharacters(in: .whitespacesAndNewlines)
        let tokens = FTSQuery.tokens(literal)
        var (corpora, skipped) = try select(options.corpora)
        guard !tokens.isEmpty, !literal.isEmpty else { return SearchReport(hits: [], skipped: skipped) }
        // One FTS5 phrase: the words in order, each quoted as in every other query (no syntax).
        let expression = FTSQuery.quote(tokens.joined(separator: " "))
        var found: [(rank: Int, corpus: Int, hit: Hit)] = []
        for (c, corpus) in corpora.enumerated() {
            try Task.checkCancellation()
            do {
                let window = try options.timeWindow.map { try corpus.rows(in: $0) }
                let matches = try corpus.phraseMatches(expression, literal: literal, limit: Self.exactCandidates)
                var rank = 0
                for m in matches where window?.contains(m.row) ?? true {
                    rank += 1
                    found.append((rank, c, Hit(corpus: corpus.id, remote: corpus.remote, version: corpus.version.description,
                                               passageID: m.detail.passageID, document: m.detail.documentPath,
                                               documentTitle: m.detail.documentTitle, section: m.detail.section, text: m.detail.text,
                                               snippet: m.detail.snippet, score: 1 / Double(options.rrfK + rank),
                                               lexicalRank: rank, vectorRank: nil)))
                }
            } catch {
                skipped.append(SkippedCorpus(name: corpus.name, error: error))
            }
        }
        found.sort { ($0.rank, $0.corpus) < ($1.rank, $1.corpus) }
        return SearchReport(hits: found.prefix(max(0, options.k)).map(\.hit), skipped: skipped)
    }
}

extension InstalledCorpus {
    /// Rows matching the FTS5 phrase `expression`, best BM25 first, whose text holds `literal`
    /// (case-insensitively), each with its details and a snippet marking the literal match.
    static func phraseMatches(_ db: Database, _ expression: String, literal: String, limit: Int) throws -> [(row: Int32, detail: PassageDetail)] {
        do {
            let s = try db.prepare("""
                SELECT f.rowid, p.pid, p.section, p.text, d.path, d.title FROM passages_fts f \
                JOIN passages p ON p.id = f.rowid JOIN documents d ON d.id = p.document_id \
                WHERE passages_fts MATCH ?1 AND rank MATCH 'bm25(\(Self.columnWeights))' ORDER BY rank LIMIT ?2
                """)
            try s.bind(1, expression).bind(2, limit)
            var out: [(Int32, PassageDetail)] = []
            while try s.step() {
                let text = s.text(3)
                guard let range = text.range(of: literal, options: [.caseInsensitive]) else { continue }
                out.append((Int32(truncatingIfNeeded: s.int(0)),
                            PassageDetail(passageID: s.text(1), documentPath: s.text(4), documentTitle: s.text(5), section: s.text(2),
                                          text: text, snippet: Self.highlight(text, range))))
            }
            return out
        }
    }

    /// The literal match between « and », with up to `context` characters either side (cut at a
    /// space where one is near) and … where the passage goes on.
    static func highlight(_ text: String, _ range: Range<String.Index>, context: Int = 60) -> String {
        var start = text.index(range.lowerBound, offsetBy: -context, limitedBy: text.startIndex) ?? text.startIndex
        var end = text.index(range.upperBound, offsetBy: context, limitedBy: text.endIndex) ?? text.endIndex
        if start > text.startIndex, let space = text[start..<range.lowerBound].firstIndex(of: " ") { start = text.index(after: space) }
        if end < text.endIndex, let space = text[range.upperBound..<end].lastIndex(of: " ") { end = space }
        return (start > text.startIndex ? snippetEllipsis : "") + text[start..<range.lowerBound] + snippetOpen + text[range]
            + snippetClose + text[range.upperBound..<end] + (end < text.endIndex ? snippetEllipsis : "")
    }
}
