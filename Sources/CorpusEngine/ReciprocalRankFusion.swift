/// The two retrieval channels a hit can come from.
public enum Channel: String, Sendable, Hashable, CaseIterable {
    case lexical
    case vector
}

/// Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): an item's score is the sum,
/// over the ranked lists that contain it, of 1 / (k + rank), with ranks starting at 1.
///
/// Only ranks are used, never the channels' raw scores, so BM25 values and cosines need no
/// common scale, and neither do the BM25 values of two corpora with different statistics.
public enum ReciprocalRankFusion {
    public static let defaultK = 60

    /// One channel's ranked list (best first) of keys; a key appears at most once per list.
    public struct RankedList<Key: Hashable>: Sendable where Key: Sendable {
        public var channel: Channel
        public var keys: [Key]
        /// Explicit 1-based ranks, one per key, for lists with ties (equal scores share a rank);
        /// nil means the position: 1, 2, 3, …
        public var ranks: [Int]?
        /// A multiplier per key on top of the channel weight (nil: 1 for every key), for evidence of
        /// unequal strength within one list: lexical hits that hold only part of the query.
        public var scales: [Double]?
        /// The channel's own score per key, higher is better (cosine, BM25): RRF ignores them;
        /// `ScoreFusion` takes them, normalised.
        public var scores: [Double]?

        public init(channel: Channel, keys: [Key], ranks: [Int]? = nil, scales: [Double]? = nil, scores: [Double]? = nil) {
            precondition(ranks == nil || ranks!.count == keys.count)
            precondition(scales == nil || scales!.count == keys.count)
            precondition(scores == nil || scores!.count == keys.count)
            self.channel = channel
            self.keys = keys
            self.ranks = ranks
            self.scales = scales
            self.scores = scores
        }

        /// A list ranked by descending score, where equal scores share a rank (dense ranking:
        /// 1, 1, 2, …), so equal evidence contributes equally to the fusion.
        public init(channel: Channel, scored: [(key: Key, score: Float)]) {
            var ranks: [Int] = []
            var rank = 0
            var last: Float?
            for item in scored {
                if item.score != last { rank += 1; last = item.score }
                ranks.append(rank)
            }
            self.init(channel: channel, keys: scored.map(\.key), ranks: ranks, scores: scored.map { Double($0.score) })
        }
    }

    public struct Fused<Key: Hashable>: Hashable, Sendable where Key: Sendable {
        public var key: Key
        public var score: Double
        /// The item's 1-based rank in each channel list that holds it.
        public var ranks: [Channel: Int]

        /// The best (smallest) rank over all its lists.
        public var bestRank: Int { ranks.values.min() ?? Int.max }
    }

    /// Fuses the lists into one ranking, best first.
    ///
    /// `weights` scales each channel's contributions (weighted RRF: w / (k + rank)); a channel
    /// it does not name counts 1, so the default is plain RRF.
    ///
    /// Ties (equal sums, common when lists from different corpora are fused) go to the better
    /// best rank, then to the key order, so the result is deterministic and lists of equal
    /// standing interleave: A1, B1, A2, B2, … for two corpora A and B.
    public static func fuse<Key: Hashable & Comparable & Sendable>(_ lists: [RankedList<Key>], k: Int = defaultK,
                                                                weights: [Channel: Double] = [:]) -> [Fused<Key>] {
        var byKey: [Key: Fused<Key>] = [:]
        for list in lists {
            let channelWeight = weights[list.channel] ?? 1
            for (i, key) in list.keys.enumerated() {
                let rank = list.ranks?[i] ?? i + 1
                let weight = channelWeight * (list.scales?[i] ?? 1)
                let contribution = weight / Double(k + rank)
                if var f = byKey[key] {
                    if let previous = f.ranks[list.channel] {
                        // A key twice in one channel (two lists of the same channel): keep its better rank only.
                        if rank < previous {
                            f.score += contribution - weight / Double(k + previous)
                            f.ranks[list.channel] = rank
                        }
                    } else {
                        f.score += contribution
                        f.ranks[list.channel] = rank
                    }
                    byKey[key] = f
                } else {
                    byKey[key] = Fused(key: key, score: contribution, ranks: [list.channel: rank])
                }
            }
        }
        return byKey.values.sorted { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.bestRank != b.bestRank { return a.bestRank < b.bestRank }
            return a.key < b.key
        }
    }
}
