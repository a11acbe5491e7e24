import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

@Suite struct CanonicalJSONTests {
    @Test func keysAreSortedByUTF8Bytes() throws {
        let value = JSONValue.object(["b": .integer(1), "a": .integer(2), "aa": .null, "B": .bool(true), "é": .bool(false), "z": .array([])])
        #expect(String(decoding: CanonicalJSON.serialize(value), as: UTF8.self) == #"{"B":true,"a":2,"aa":null,"b":1,"z":[],"é":false}"#)
    }

    struct Escape: Sendable, CustomTestStringConvertible {
        let input: String
        let encoded: String
        var testDescription: String { encoded }
    }

    static let escapes: [Escape] = [
        Escape(input: "plain", encoded: #""plain""#),
        Escape(input: "quote \" backslash \\", encoded: #""quote \" backslash \\""#),
        Escape(input: "\n\r\t\u{08}\u{0C}", encoded: #""\n\r\t\b\f""#),
        Escape(input: "\u{00}\u{01}\u{1F}", encoded: #""\u0000\u0001\u001f""#),
        Escape(input: "slash / and DEL \u{7F}", encoded: "\"slash / and DEL \u{7F}\""),
        Escape(input: "marées — 東京 🌊", encoded: "\"marées — 東京 🌊\""),
    ]

    @Test(arguments: escapes)
    func stringsEscapeOnlyQuoteBackslashAndControls(_ e: Escape) throws {
        let bytes = CanonicalJSON.serialize(.string(e.input))
        #expect(String(decoding: bytes, as: UTF8.self) == e.encoded)
        // Any JSON parser reads back the same string.
        #expect(try JSONDecoder().decode(String.self, from: Data(bytes)) == e.input)
    }

    @Test(arguments: ["1.5", "-0.25", "1e-3", "[1, 2.5]", #"{"a": 3.14}"#])
    func floatsAreRefused(_ text: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
    }

    @Test func integersRoundTripAtTheirLimits() throws {
        let value = JSONValue.array([.integer(0), .integer(-1), .integer(Int64.max), .integer(Int64.min)])
        let bytes = CanonicalJSON.serialize(value)
        #expect(String(decoding: bytes, as: UTF8.self) == "[0,-1,9223372036854775807,-9223372036854775808]")
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) == value)
    }

    /// Canonical documents of every signed type: parsing and re-encoding must give the same bytes.
    /// (Digests are 64 lower-case hex digits: `SHA256Digest` refuses anything else as it decodes.)
    static let documents: [String] = [
        #"{"content_digest":"4c5e8d0c7a0d4f0c6c6a3c1b5f5b1c9e2f2e0d7c6b5a4f3e2d1c0b9a8f7e6d5c","description":"Tides — et marées","documents":12,"embedder":{"dimension":384,"encoding":"int8","id":"hash-uni-bi-384-v1"},"format":1,"id":"sea-guide","language":"en","license":"CC-BY-4.0","members":{"pack.sqlite":{"sha256":"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff","size":123},"vectors.bin":{"sha256":"ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100","size":456}},"passages":40,"title":"Sea \"guide\"\n","version":"1.2.0"}"#,
        #"{"content_digest":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","description":"","documents":1,"embedder":{"digest":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","dimension":16,"encoding":"f32","id":"minilm"},"format":1,"id":"x","language":"fr","license":"","members":{},"passages":1,"title":"t","version":"3"}"#,
        #"{"corpora":[{"access":"entitled","bundle":{"path":"bundles/00.corpus.zip","sha256":"0000000000000000000000000000000000000000000000000000000000000000","size":10},"bundled":false,"content_digest":"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd","description":"d","documents":1,"embedder":{"dimension":16,"encoding":"int8","id":"e"},"id":"a","language":"en","license":"l","passages":2,"tier":"pro","title":"A","version":"2026.11"}],"expires":"2026-12-29T00:00:00Z","format":1,"id":"demo","issued":"2026-11-29T00:00:00Z","root_version":1,"title":"Demo catalog","version":7}"#,
        #"{"format":1,"id":"demo","path":"catalogs/7.json","version":7}"#,
        #"{"created":"2026-11-29T20:05:00Z","format":1,"key":"RWQAAAAAAAAAAA==","key_id":"0011223344556677","version":2}"#,
    ]

    @Test(arguments: documents)
    func reencodingAParsedDocumentGivesTheSameBytes(_ text: String) throws {
        let data = Data(text.utf8)
        let tree = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(Data(CanonicalJSON.serialize(tree)) == data)
        let reencoded: Data
        if text.contains("\"members\"") {
            reencoded = try CanonicalJSON.encode(try CanonicalJSON.decode(Manifest.self, from: data, what: "manifest"))
        } else if text.contains("\"corpora\"") {
            reencoded = try CanonicalJSON.encode(try CanonicalJSON.decode(Catalog.self, from: data, what: "catalog"))
        } else if text.contains("\"path\"") {
            reencoded = try CanonicalJSON.encode(try CanonicalJSON.decode(CatalogPointer.self, from: data, what: "pointer"))
        } else {
            reencoded = try CanonicalJSON.encode(try CanonicalJSON.decode(RootKeyDocument.self, from: data, what: "root key"))
        }
        #expect(reencoded == data)
    }

    @Test func nonCanonicalInputParsesToTheCanonicalForm() throws {
        let loose = Data(#"{ "version" : 7, "path": "catalogs/7.json", "id":"demo", "format":1 }"#.utf8)
        let pointer = try CanonicalJSON.decode(CatalogPointer.self, from: loose, what: "pointer")
        #expect(String(decoding: try CanonicalJSON.encode(pointer), as: UTF8.self) == Self.documents[3])
    }

    @Test func manifestDecodeRefusesWhatLaterCodeCannotTrust() throws {
        let good = Self.documents[0]
        #expect(try Manifest.decode(Data(good.utf8)).id == "sea-guide")
        let cases: [(String, FormatError)] = [
            (good.replacingOccurrences(of: #""id":"sea-guide""#, with: #""id":"../x""#),
             .malformed(what: "corpus id", reason: #""../x" is not a valid id (1-64 of a-z 0-9 . _ -, starting with a letter or digit)"#)),
            (good.replacingOccurrences(of: #""pack.sqlite":{"#, with: #""pack.sqlite-wal":{"#), .memberNotAllowed("pack.sqlite-wal")),
            (good.replacingOccurrences(of: #""format":1"#, with: #""format":3"#),
             .unsupported(what: "corpus manifest", reason: "format 3; this build reads formats 1 and 2")),
            // Format 2 is a pack whose index is built at install; without `index` it is no manifest this build wrote.
            (good.replacingOccurrences(of: #""format":1"#, with: #""format":2"#),
             .malformed(what: "corpus manifest", reason: "format 2 with index in the pack")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try Manifest.decode(Data(text.utf8)) }
        }
    }
}

/// `CanonicalJSON.encode` reads JSONEncoder's output with its own parser (issue 31: the generic
/// `JSONValue` decoding was half of a republish); it must give the bytes the generic path gave.
@Suite struct CanonicalJSONEncodeParityTests {
    /// The generic path `encode` took before: JSONEncoder, then JSONDecoder into `JSONValue`.
    static func reference<T: Encodable>(_ value: T) throws -> Data {
        Data(CanonicalJSON.serialize(try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value))))
    }

    struct Odd: Codable {
        var texts: [String]
        var numbers: [Int64]
        var flags: [Bool?]
        var nested: [String: [String: Int]]
        var empty: [String: String]
        var none: [Int]
    }

    @Test func everyKindOfValueEncodesAsTheGenericPathDid() throws {
        let odd = Odd(texts: ["plain", "quote \" backslash \\ slash /", "\n\r\t\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F}", "marées — 東京 🌊 \u{2028}\u{202E}",
                              "", "\u{10FFFF}\u{FFFD}"],
                      numbers: [0, -1, Int64.max, Int64.min, 42], flags: [true, false, nil],
                      nested: ["b": ["z": 1, "a": -2], "a": [:], "é": ["B": 3]], empty: [:], none: [])
        #expect(try CanonicalJSON.encode(odd) == Self.reference(odd))
        let entries = (0..<300).map { generatedEntry($0) }
        let catalog = Catalog(id: "scale", title: "Tïtle \"quoted\"\n", version: 3, issued: Date(timeIntervalSince1970: 1_800_000_000),
                              expires: Date(timeIntervalSince1970: 1_900_000_000), rootVersion: 2, corpora: entries)
        #expect(try CanonicalJSON.encode(catalog) == Self.reference(catalog))
    }

    @Test func aFractionIsRefusedAsBefore() throws {
        #expect(throws: (any Error).self) { try Self.reference([1.5]) }
        #expect(throws: (any Error).self) { try CanonicalJSON.encode([1.5]) }
    }
}
