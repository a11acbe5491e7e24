import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Terminal control characters (ESC/CSI/OSC sequences, C1 controls, bidi overrides, carriage
/// returns) in catalog fields and documents: published as data, unchanged, and the publisher warns
/// with one line per field, naming it, the text escaped in the warning itself.
@Suite struct ControlCharacterWarningTests {
    final class Fixture: PublishFolder {
        static let title = "Tides \u{1B}]0;owned\u{7}"
        static let description = "Line one\nline two with \u{1B}[2J a clear-screen"
        static let license = "CC0\u{202E}1.0"
        static let language = "en\r"

        init() throws {
            try super.init("control-characters")
            let entry: [String: Any] = ["id": "tides", "version": "1", "title": Self.title, "description": Self.description,
                                        "license": Self.license, "language": Self.language, "source": "tides", "access": "free"]
            let plain: [String: Any] = ["id": "plain", "version": "1", "title": "Plain\ttitle", "description": "Two\nlines", "source": "plain", "access": "free"]
            let catalog: [String: Any] = ["id": "sea", "title": "Sea \u{9B}31m", "corpora": [entry, plain]]
            try dir.write("catalog/catalog.json", try JSONSerialization.data(withJSONObject: catalog))
            try dir.write("catalog/tides/springs.md", "# Springs \u{1B}[31mred\u{1B}[0m\n\nSpring tides \u{2066}follow\u{2069} the moon.")
            try dir.write("catalog/tides/neaps.md", "# Neaps\n\nNeap tides are plain.")
            try dir.write("catalog/plain/a.md", "# A\n\nPlain words.")
        }
    }

    static let publishWarnings = [
        #"warning: catalog sea: title holds terminal control characters, published as they are: Sea <U+009B>31m"#,
        #"warning: corpus tides: title holds terminal control characters, published as they are: Tides \x1b]0;owned\x07"#,
        #"warning: corpus tides: description holds terminal control characters, published as they are: Line one\nline two with \x1b[2J a clear-screen"#,
        #"warning: corpus tides: license holds terminal control characters, published as they are: CC0<U+202E>1.0"#,
        #"warning: corpus tides: language holds terminal control characters, published as they are: en\r"#,
    ]
    static let documentWarnings = [
        #"warning: corpus tides, document springs.md: title holds terminal control characters, published as they are: Springs \x1b[31mred\x1b[0m"#,
        #"warning: corpus tides, document springs.md: text holds terminal control characters, published as they are: Spring tides <U+2066>follow<U+2069> the moon."#,
    ]

    @Test func publishWarnsOncePerFieldWithTheTextEscapedAndPublishesItUnchanged() throws {
        let f = try Fixture()
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["publish", f.dir.url("catalog"), "--out", f.tree, "--key", f.keyPath])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        // A single-key tree's publish also says, once, that its one key holds every role.
        #expect(lines.filter { $0.hasPrefix("warning: key \(f.key.keyID) holds every role") }.count == 1)
        let warnings = lines.filter { $0.hasPrefix("warning: ") && !$0.hasPrefix("warning: key ") }
        #expect(Set(warnings) == Set(Self.publishWarnings + Self.documentWarnings))
        #expect(warnings.count == Self.publishWarnings.count + Self.documentWarnings.count)
        // Nothing a terminal would act on reaches stderr, whatever the fields held.
        #expect(!TerminalText.containsUnsafe(r.stderr))

        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/catalogs/1.json")))
        #expect(catalog.title == "Sea \u{9B}31m")
        let tides = try #require(catalog.corpora.first { $0.id == "tides" })
        #expect([tides.title, tides.description, tides.license, tides.language] == [Fixture.title, Fixture.description, Fixture.license, Fixture.language])

        // A second publish reuses the bundle, so only the catalog fields are warned about again.
        let again = try ProcessRunner.run(BuiltProducts.corpusd, ["publish", f.dir.url("catalog"), "--out", f.tree, "--key", f.keyPath, "--json"])
        #expect(again.status == 0)
        let events = again.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
            .filter { $0["event"] == "warning" }
        #expect(events.count == Self.publishWarnings.count)
        #expect(events.first == ["event": "warning", "owner": "catalog sea", "field": "title", "text": "Sea <U+009B>31m"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((summary["warnings"] as? [[String: String]])?.count == Self.publishWarnings.count)
    }

    @Test func buildWarnsAboutItsOwnFieldsAndTheDocuments() throws {
        let f = try Fixture()
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", f.dir.url("catalog/tides"), "--id", "tides", "--version", "1",
                                                              "--title", Fixture.title, "--key", f.keyPath, "--out", f.dir.url("t.corpus.zip")])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("warning: ") }
        #expect(warnings == [Self.publishWarnings[1]] + Self.documentWarnings)
        #expect(!TerminalText.containsUnsafe(r.stderr))
    }

    @Test func aFileNameWithControlCharactersIsEscapedWhereverItIsPrinted() throws {
        let f = try Fixture()
        try f.dir.write("catalog/tides/evil\u{1B}[1A.bin", "x")
        try f.dir.write("catalog/tides/bad\u{202E}name.md", "# Bad\n\nA file name with an override.")
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", f.dir.url("catalog/tides"), "--id", "tides", "--version", "1",
                                                              "--key", f.keyPath, "--out", f.dir.url("t.corpus.zip")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(#"skipped evil\x1b[1A.bin: unsupported file type"#))
        #expect(r.stderr.contains(#"warning: corpus tides, document bad<U+202E>name.md: path holds terminal control characters, published as they are: bad<U+202E>name.md"#))
        #expect(!TerminalText.containsUnsafe(r.stderr))
    }

    @Test func theLibraryReportsTheWarningsInItsSummary() throws {
        let f = try Fixture()
        let summary = try TreePublisher.publish(catalogDirectory: f.dir.url("catalog"), output: f.tree, key: try SecretKey(contentsOf: f.keyPath))
        #expect(summary.warnings.map { "\($0.owner) \($0.field)" } == [
            "catalog sea title", "corpus tides title", "corpus tides description", "corpus tides license", "corpus tides language",
            "corpus tides, document springs.md title", "corpus tides, document springs.md text",
        ])
    }
}
