import CorpusFormat

/// A model-free embedder: feature hashing of normalized word unigrams and bigrams.
///
/// It is lexical, not semantic: two texts are close when they share words and word pairs,
/// never because they mean the same thing. It exists so that every corpus has a vector
/// channel with no model to download. Each feature is hashed (FNV-1a 64) to one of
/// `dimension` buckets with a sign from another hash bit; unigrams weigh 1, bigrams 0.5
/// (a bigram is the two words joined by one space); the vector is L2-normalized. Words are
/// lower-cased (`String.lowercased()`) and split on any `Character` that is not a letter or
/// digit (`isLetter`, `isNumber`).
///
/// These rules are the embedder's identity (`hash-uni-bi-384-v1`): bundles already published
/// hold vectors made by them, so any faster way of computing them must give the same bits.
/// Pure ASCII text takes a byte-level path that yields exactly the words the Unicode rules
/// give for ASCII (letters are A–Z a–z, digits 0–9, and the only multi-scalar ASCII grapheme,
/// CR LF, is a separator either way); any other text takes the Unicode path.
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
        v.withUnsafeMutableBufferPointer { out in
            var accumulator = Accumulator(out: out)
            var text = text
            let ascii = text.withUTF8 { bytes in
                guard Self.isASCII(bytes) else { return false }
                Self.addASCIIFeatures(bytes, to: &accumulator)
                return true
            }
            if !ascii {
                for word in Self.words(text) {
                    var word = word
                    word.withUTF8 { accumulator.add(word: $0) }
                }
            }
        }
        // Summed in index order, as before, so the norm (and so every value) is bit-identical.
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if norm > 0 { for i in v.indices { v[i] /= norm } }
        return v
    }

    /// The Unicode path: words as `Character`s define them.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    static func fnv1a(_ s: String) -> UInt64 {
        var h = fnvOffset
        for b in s.utf8 { h = fnv1a(h, b) }
        return h
    }

    static let fnvOffset: UInt64 = 0xcbf29ce484222325

    @inline(__always)
    static func fnv1a(_ h: UInt64, _ byte: UInt8) -> UInt64 {
        (h ^ UInt64(byte)) &* 0x100000001b3
    }

    /// Adds each word's unigram and its bigram with the word before, in text order, hashing
    /// the bigram by continuing the previous word's FNV state over " " and this word's bytes:
    /// the same hash as FNV-1a over the joined string, without building it.
    struct Accumulator {
        let out: UnsafeMutableBufferPointer<Float>
        /// The FNV-1a state after the previous word's bytes, i.e. its unigram hash.
        var previous: UInt64?

        init(out: UnsafeMutableBufferPointer<Float>) { self.out = out }

        @inline(__always)
        mutating func add(_ h: UInt64, _ weight: Float) {
            let bucket = Int(h % UInt64(out.count))
            out[bucket] += (h >> 63) == 0 ? weight : -weight
        }

        /// A word given as its (already lower-cased) UTF-8 bytes.
        mutating func add(word: UnsafeBufferPointer<UInt8>) {
            var unigram = HashingEmbedder.fnvOffset
            var bigram = previous.map { HashingEmbedder.fnv1a($0, 0x20) } ?? 0
            for b in word {
                unigram = HashingEmbedder.fnv1a(unigram, b)
                bigram = HashingEmbedder.fnv1a(bigram, b)
            }
            finish(unigram: unigram, bigram: bigram)
        }

        /// Ends a word whose unigram hash and bigram hash (meaningless for the first word) are known.
        @inline(__always)
        mutating func finish(unigram: UInt64, bigram: UInt64) {
            add(unigram, 1)
            if previous != nil { add(bigram, 0.5) }
            previous = unigram
        }
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for b in bytes { any |= b }
        return any < 0x80
    }

    /// The ASCII path: words are maximal runs of `[A-Za-z0-9]`, lower-cased byte by byte. Each
    /// byte goes into the word's unigram hash and, at the same time, into its bigram hash.
    static func addASCIIFeatures(_ bytes: UnsafeBufferPointer<UInt8>, to accumulator: inout Accumulator) {
        var unigram = fnvOffset
        var bigram: UInt64 = 0
        var inWord = false
        for b in bytes {
            let lower = b | 0x20
            let c: UInt8
            if (b &- 0x30) < 10 {
                c = b
            } else if (lower &- 0x61) < 26 {
                c = lower
            } else {
                if inWord {
                    accumulator.finish(unigram: unigram, bigram: bigram)
                    inWord = false
                }
                continue
            }
            if !inWord {
                inWord = true
                unigram = fnvOffset
                if let previous = accumulator.previous { bigram = fnv1a(previous, 0x20) }
            }
            unigram = fnv1a(unigram, c)
            bigram = fnv1a(bigram, c)
        }
        if inWord { accumulator.finish(unigram: unigram, bigram: bigram) }
    }
}
