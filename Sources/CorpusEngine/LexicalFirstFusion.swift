/// Lexical-first fusion: BM25's ranking, with a vector list that only breaks its ties and fills
/// in after its last hit (docs/engine.md "Fusion, measured").
///
/// For a vector channel that is lexical itself (the hashing embedder: feature hashing of the
/// query's words), fusing by rank or by score let its accidental matches push passages BM25
/// ranked first out of the top five, and it never found what BM25 missed often enough to pay for
/// that. Here a passage of the lexical list keeps its lexical rank: the fused ranking restricted
/// to the lexical list is the lexical ranking itself, so the fusion can never rank a passage
/// below where BM25 alone puts it. The vector list decides only between passages of equal
/// lexical rank (corpora of equal standing; its cosines compare across corpora, BM25 values do
/// not), and passages only it found follow, in its order.
public enum LexicalFirstFusion {
    /// Fuses `lists` (at most one lexical list; any number of vector lists), best first. A
    /// passage's score is `1 / (k + place)`, place starting at 1: the order is the evidence, and
    /// the score only has to fall with it.
    public static func fuse<Key: Hashable & Comparable & Sendable>(_ lists: [ReciprocalRankFusion.RankedList<Key>],
                                                                k: Int = ReciprocalRankFusion.defaultK) -> [ReciprocalRankFusion.Fused<Key>] {
        var ranks: [Key: [Channel: Int]] = [:]
        for list in lists {
            for (i, key) in list.keys.enumerated() {
                let rank = list.ranks?[i] ?? i + 1
                // A key in two lists of one channel keeps its better rank.
                if let previous = ranks[key]?[list.channel], previous <= rank { continue }
                ranks[key, default: [:]][list.channel] = rank
            }
        }
        let ordered = ranks.sorted { a, b in
            let la = a.value[.lexical] ?? Int.max, lb = b.value[.lexical] ?? Int.max
            if la != lb { return la < lb }
            let va = a.value[.vector] ?? Int.max, vb = b.value[.vector] ?? Int.max
            if va != vb { return va < vb }
            return a.key < b.key
        }
        return ordered.enumerated().map { place, item in
            ReciprocalRankFusion.Fused(key: item.key, score: 1 / Double(k + place + 1), ranks: item.value)
        }
    }
}
