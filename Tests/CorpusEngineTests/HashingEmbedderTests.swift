import Testing
@testable import CorpusEngine

/// The embedder's output is part of every published bundle (`hash-uni-bi-384-v1`), so the fast
/// implementation must give the very same bits as the original one, kept here as the reference.
@Suite struct HashingEmbedderTests {
    /// The original implementation, verbatim: Character-level lower-casing and splitting, and a
    /// String per bigram.
    static func reference(_ text: String) -> [Float] {
        let dimension = 384
        var v = [Float](repeating: 0, count: dimension)
        let words = text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
        func fnv1a(_ s: String) -> UInt64 {
            var h: UInt64 = 0xcbf29ce484222325
            for b in s.utf8 {
                h ^= UInt64(b)
                h = h &* 0x100000001b3
            }
            return h
        }
        func add(_ feature: String, _ weight: Float) {
            let h = fnv1a(feature)
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

    static let texts: [String] = [
        "",
        " ",
        "...,;!?",
        "a",
        "Hello",
        "hello world",
        "Hello, World! HELLO world.",
        "  leading and trailing separators  ",
        "CamelCase snake_case kebab-case dot.case",
        "x86_64 IPv6 2026-11-29 3.14159 0xFF 1e-9",
        "line one\nline two\r\nline three\rfour\tfive\u{0}six\u{7F}seven",
        "@[`{ brackets ] and ~tildes^ | pipes /slashes\\ \"quotes\" 'single'",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789",
        "the the the the the",
        // Unicode: the fallback path.
        "Crème brûlée at the café",
        "Straße STRASSE İstanbul ǅemal",
        "ΣΊΣΥΦΟΣ σίσυφος Οδυσσέας",
        "Москва — столица России",
        "日本語のテキスト、漢字とかな。",
        "e\u{301}cole vs école",
        "x² 3½ Ⅷ ٣ ४२",
        "emoji 🙂 between 👩‍👩‍👧 words",
        "ASCII words then one é at the end",
        "\u{FEFF}byte order mark",
    ]

    @Test(arguments: texts)
    func matchesTheReferenceBitForBit(_ text: String) {
        let fast = HashingEmbedder().embedOne(text)
        #expect(fast.map(\.bitPattern) == Self.reference(text).map(\.bitPattern))
    }

    /// Every ASCII byte in every position: random ASCII strings with a skew towards letters and
    /// separators, so words of all lengths occur.
    @Test func matchesTheReferenceOnRandomASCII() {
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        let embedder = HashingEmbedder()
        for _ in 0..<300 {
            let length = Int(next() % 400)
            let bytes = (0..<length).map { _ -> UInt8 in
                let r = next()
                switch r % 4 {
                case 0: return UInt8(r >> 8 & 0x7F)
                case 1: return UInt8(0x41 + (r >> 8) % 26)
                case 2: return " ,.\n-".utf8.map { $0 }[Int((r >> 8) % 5)]
                default: return UInt8(0x61 + (r >> 8) % 26)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(embedder.embedOne(text).map(\.bitPattern) == Self.reference(text).map(\.bitPattern), "text: \(bytes)")
        }
    }

    @Test func vectorsAreUnitLengthOrZero() throws {
        let vectors = try HashingEmbedder().embed(["hello world", "", "---"])
        let norm = vectors[0].reduce(0) { $0 + $1 * $1 }
        #expect(abs(norm - 1) < 1e-5)
        #expect(vectors[1].allSatisfy { $0 == 0 })
        #expect(vectors[2].allSatisfy { $0 == 0 })
    }
}
