/// Score-based fusion: a convex combination of each channel's normalised scores (Bruch, Gai &
/// Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023), the
/// alternative to reciprocal rank fusion that `corpus-bench eval` measures (docs/engine.md).
///
/// Where RRF hands rank 1 of a channel the same credit whether it won by a mile or by a hair,
/// this keeps the margins: a passage's score is the sum over the lists holding it of
/// `weight · scale · score`, with each list's scores already normalised to [0, 1] by its caller
/// (`normalised`), so the dense channel's confidence can outvote a weak lexical match.
public enum ScoreFusion {
    /// Fuses lists whose `scores` are normalised (a list without scores counts 1 per key),
    /// best first; ties go to the better best rank, then the key order, as in RRF.
    public static func fuse<Key: Hashable & Comparable & Sendable>(_ lists: [ReciprocalRankFusion.RankedList<Key>],
                                                                weights: [Channel: Double]) -> [ReciprocalRankFusion.Fused<Key>] {
        var byKey: [Key: ReciprocalRankFusion.Fused<Key>] = [:]
        for list in lists {
            let channelWeight = weights[list.channel] ?? 1
            for (i, key) in list.keys.enumerated() {
                let rank = list.ranks?[i] ?? i + 1
                let contribution = channelWeight * (list.scales?[i] ?? 1) * (list.scores?[i] ?? 1)
                var f = byKey[key] ?? ReciprocalRankFusion.Fused(key: key, score: 0, ranks: [:])
                // A key is in one list per channel (a corpus has one embedder); keep its first entry.
                if f.ranks[list.channel] != nil { continue }
                f.score += contribution
                f.ranks[list.channel] = rank
                byKey[key] = f
            }
        }
        return byKey.values.sorted { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.bestRank != b.bestRank { return a.bestRank < b.bestRank }
            return a.key < b.key
        }
    }

    /// Theoretical min-max normalisation (Bruch et al.'s TMM): each score over the list's best, so
    /// the best becomes 1 and the channel's own floor, 0 (BM25 is never negative; the vector index
    /// returns positive cosines only), stays 0. Unlike the observed min-max it does not stretch a
    /// hair's difference into the whole range: in a short list, two passages a rounding error
    /// apart would otherwise score 1 and 0. A best of 0 or less leaves every score 1.
    public static func normalised(_ scores: [Double]) -> [Double] {
        guard let hi = scores.max() else { return [] }
        guard hi > 0 else { return scores.map { _ in 1 } }
        return scores.map { max(0, $0) / hi }
    }
}
