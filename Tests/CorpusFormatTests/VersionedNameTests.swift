import Foundation
import Testing
import CorpusFormat

/// `ID[@VERSION]` as people type it, read by one parser (`VersionedName`): every accepted form
/// and every refusal, each refusal naming what is missing.
@Suite struct VersionedNameTests {
    static let accepted: [(text: String, name: String, version: String?)] = [
        ("tides", "tides", nil),
        ("tides@3", "tides", "3"),
        ("tides@1.2.0", "tides", "1.2.0"),
        ("main/tides", "main/tides", nil),
        ("main/tides@2026.11", "main/tides", "2026.11"),
    ]

    @Test(arguments: accepted)
    func anIDWithAnOptionalVersionParses(_ c: (text: String, name: String, version: String?)) throws {
        let parsed = try VersionedName.parse(c.text)
        #expect(parsed.name == c.name)
        #expect(parsed.version == c.version.flatMap { CorpusVersion($0) })
        #expect(parsed.description == c.text, "it reads back as typed")
    }

    static let refused: [(text: String, error: VersionedNameError, message: String)] = [
        ("tides@", .missingVersion(text: "tides@"), #""tides@" has no VERSION after the @"#),
        ("main/tides@", .missingVersion(text: "main/tides@"), #""main/tides@" has no VERSION after the @"#),
        ("@1", .missingID(text: "@1"), #""@1" has no ID before the @"#),
        ("@", .missingID(text: "@"), #""@" has no ID before the @"#),
        ("", .missingID(text: ""), #""" names no corpus: it has no ID"#),
        ("tides@1..2", .invalidVersion(text: "tides@1..2"), #""tides@1..2" is not an id with an optional @VERSION, like tides or tides@3 or tides@1.2.0"#),
        ("tides@x", .invalidVersion(text: "tides@x"), #""tides@x" is not an id with an optional @VERSION, like tides or tides@3 or tides@1.2.0"#),
        ("tides@1@2", .invalidVersion(text: "tides@1@2"), #""tides@1@2" is not an id with an optional @VERSION, like tides or tides@3 or tides@1.2.0"#),
    ]

    @Test(arguments: refused)
    func aMissingIDOrVersionIsRefusedByName(_ c: (text: String, error: VersionedNameError, message: String)) {
        #expect(throws: c.error) { try VersionedName.parse(c.text) }
        #expect(c.error.description == c.message)
        #expect(c.error.text == c.text)
    }
}
