import Foundation

/// `corpus search --extract`: an answer made of the passages' own sentences, for apps without a
/// language model. The sentences of the top passages are scored by the query's content words
/// they hold (each word weighted by how rare it is among those sentences, so a sentence holding
/// the one distinctive word beats one repeating a common one), with a small bonus for the
/// passage's rank; the best few are returned in score order, each with its citation.
public enum ExtractiveAnswer {
    public struct Sentence: Sendable, Hashable {
        public var text: String
        public var score: Double
        /// The hit it comes from (corpus, document, section: the citation) and that hit's rank.
        public var hit: Hit
        public var rank: Int
    }

    public static func extract(_ query: String, from hits: [Hit], passages: Int = 5, sentences: Int = 3) -> [Sentence] {
        let words = Set(FTSQuery.contentTokens(FTSQuery.tokens(query)).map { stem($0) })
        guard !words.isEmpty else { return [] }
        var candidates: [(text: String, words: Set<String>, hit: Hit, rank: Int)] = []
        for (i, hit) in hits.prefix(passages).enumerated() {
            for s in Sentences.split(hit.text) {
                let held = Set(FTSQuery.tokens(s).map { stem($0) }).intersection(words)
                candidates.append((s, held, hit, i + 1))
            }
        }
        // Rarer query words among the candidate sentences weigh more (an IDF over this small set).
        var df: [String: Int] = [:]
        for c in candidates { for w in c.words { df[w, default: 0] += 1 } }
        let n = Double(max(1, candidates.count))
        let scored = candidates.compactMap { c -> Sentence? in
            guard !c.words.isEmpty else { return nil }
            let idf = c.words.reduce(0.0) { $0 + log(1 + n / Double(df[$1] ?? 1)) }
            return Sentence(text: c.text, score: idf + 0.5 / Double(c.rank), hit: c.hit, rank: c.rank)
        }
        return Array(scored.sorted { $0.score != $1.score ? $0.score > $1.score : ($0.rank, $0.text) < ($1.rank, $1.text) }.prefix(sentences))
    }

    /// Lower case, and a plural or -ing/-ed ending off, so "tides" meets "tide" (FTS5 stems the same way, roughly).
    static func stem(_ word: String) -> String {
        var w = word.lowercased()
        for suffix in ["ing", "ed", "es", "s"] where w.count > suffix.count + 2 && w.hasSuffix(suffix) {
            w.removeLast(suffix.count)
            break
        }
        return w
    }
}
