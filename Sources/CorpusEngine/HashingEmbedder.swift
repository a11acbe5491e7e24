import CorpusFormat

/// A model-free embedder: feature hashing of normalized word unigrams and bigrams.
///
/// It is lexical, not semantic: two texts are close when they share words and word pairs,
/// never because they mean the same thing. It exists so that every corpus has a vector
/// channel with no model to download. Each feature is hashed (FNV-1a 64) to one of
/// `dimension` buckets with a sign from another hash bit; unigrams weigh 1, bigrams 0.5;
/// the vector is L2-normalized. Words are lower-cased and split on anything that is not a
/// letter or digit.
public struct HashingEmbedder: Embedder {
    public static let identifier = "hash-uni-bi-384-v1"
    public let id = HashingEmbedder.identifier
    public let dimension = 384

    public init() {}

    public func embed(_ texts: [String]) throws -> [[Float]] {
        texts.map(embedOne)
    }

    public func embedOne(_ text: String) -> [Float] {
        var v = [Float](repeating: 0, count: dimension)
        let words = Self.words(text)
        func add(_ feature: String, _ weight: Float) {
            let h = Self.fnv1a(feature)
            let bucket = Int(h % UInt64(dimension))
            v[bucket] += (h >> 63) == 0 ? weight : -weight
        }
        for (i, w) in words.enumerated() {
            add(w, 1)
            if i > 0 { add(words[i - 1] + " " + w, 0.5) }
        }
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if norm > 0 { for i in v.indices { v[i] /= norm } }
        return v
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    static func fnv1a(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100000001b3
        }
        return h
    }
}
