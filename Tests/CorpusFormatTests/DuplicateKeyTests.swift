import Foundation
import Testing
import CorpusFormat

/// RFC 8259 §4: with duplicate names "the behavior of software that receives such an object is
/// unpredictable" — two readers of one signed document may see two different documents. Every
/// signed or hashed document CorpusSync decodes refuses them.
@Suite struct DuplicateKeyTests {
    static let catalog = #"{"corpora":[],"expires":"2099-12-29T00:00:00Z","format":1,"id":"demo","issued":"2026-11-29T00:00:00Z","root_version":1,"title":"Demo catalog","version":7}"#

    static let cases: [(String, String, String)] = [
        ("top level", #"{"version":1,"#.appending(Self.catalog.dropFirst()), "version"),
        ("escaped the second time", #"{"\u0069d":"other","#.appending(Self.catalog.dropFirst()), "id"),
        ("nested", #"{"corpora":[{"id":"a","id":"b"}],"expires":"2099-12-29T00:00:00Z","format":1,"id":"demo","issued":"2026-11-29T00:00:00Z","root_version":1,"title":"Demo catalog","version":7}"#, "corpora.0.id"),
    ]

    @Test(arguments: cases)
    func aCatalogWithADuplicateKeyIsRefused(_ name: String, _ text: String, _ path: String) throws {
        #expect(throws: FormatError.malformed(what: "catalog", reason: "duplicate key \"\(path)\""), "\(name)") {
            try Catalog.decode(Data(text.utf8))
        }
    }

    @Test func theSameCatalogWithoutTheDuplicateDecodes() throws {
        #expect(try Catalog.decode(Data(Self.catalog.utf8)).version == 7)
    }

    @Test func aPointerAndAManifestWithDuplicateKeysAreRefused() throws {
        #expect(throws: FormatError.malformed(what: "pointer", reason: "duplicate key \"version\"")) {
            try CanonicalJSON.decode(CatalogPointer.self, from: Data(#"{"format":1,"id":"demo","path":"catalogs/7.json","version":7,"version":8}"#.utf8), what: "pointer")
        }
        let manifest = #"{"content_digest":"aa","description":"","documents":1,"embedder":{"dimension":16,"encoding":"f32","id":"minilm","id":"other"},"format":1,"id":"x","language":"fr","license":"","members":{},"passages":1,"title":"t","version":"3"}"#
        #expect(throws: FormatError.malformed(what: "corpus manifest", reason: "duplicate key \"embedder.id\"")) {
            try Manifest.decode(Data(manifest.utf8))
        }
    }

    /// Keys equal as Swift strings are equal keys for the decoder too (canonical equivalence),
    /// so they are duplicates, while keys that only look alike are not.
    @Test func duplicatesAreFoundAsTheDecoderSeesKeys() {
        #expect(CanonicalJSON.duplicateKey(in: Array(#"{"caf\u00e9":1,"cafe\u0301":2}"#.utf8)) == "café")
        #expect(CanonicalJSON.duplicateKey(in: Array(#"{"a":1,"A":2,"a ":3,"b":{"a":4}}"#.utf8)) == nil)
        #expect(CanonicalJSON.duplicateKey(in: Array(#"[{"a":1},{"a":2}]"#.utf8)) == nil)
        #expect(CanonicalJSON.duplicateKey(in: Array(#"{"s":"{\"a\":1,\"a\":2}"}"#.utf8)) == nil)
        #expect(CanonicalJSON.duplicateKey(in: Array(#"{"a":[1,{"b":true,"b":null}]}"#.utf8)) == "a.1.b")
        #expect(CanonicalJSON.duplicateKey(in: Array(#"{"\ud83c\udf0a":1,"🌊":2}"#.utf8)) == "🌊")
    }
}
