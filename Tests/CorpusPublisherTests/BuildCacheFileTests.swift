import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `.build-cache.json` format 2: one JSON object written a corpus to a line, read line by line on
/// every core, and written again with each unchanged corpus's line as it was read.
@Suite struct BuildCacheFileTests {
    struct Value: Codable, Equatable, Sendable {
        var inputs: String
        var size: Int
    }

    @Test func linesRoundTripAndTheWholeObjectIsStillJSON() throws {
        let values = Dictionary(uniqueKeysWithValues: (0..<600).map { ("book-\($0)", Value(inputs: "in-\($0)", size: $0)) })
        let data = try BuildCacheFile.write(values) { _, _ in nil }
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("{\"format\":2,\"corpora\":{\n\"book-0\":{\"inputs\":\"in-0\",\"size\":0},\n"))
        #expect(text.hasSuffix("\"book-99\":{\"inputs\":\"in-99\",\"size\":99}\n}}\n"))
        let read = try #require(BuildCacheFile.readLines(data, as: Value.self))
        #expect(read.mapValues(\.value) == values)
        #expect(read.values.allSatisfy { $0.bytes != nil })
        let whole = try JSONDecoder().decode(BuildCacheFile.Whole<Value>.self, from: data)
        #expect(whole.format == 2 && whole.corpora == values)
    }

    /// An unchanged value is written as the bytes it was read from, not encoded again: here a line
    /// whose keys are out of order (as no encoder of ours writes them) survives a save that
    /// changed another line.
    @Test func aSaveWritesAnUnchangedLineAsItWasRead() throws {
        let file = Data("{\"format\":2,\"corpora\":{\n\"a\":{\"size\":1,\"inputs\":\"x\"},\n\"b\":{\"inputs\":\"y\",\"size\":2}\n}}\n".utf8)
        let read = try #require(BuildCacheFile.readLines(file, as: Value.self))
        var values = read.mapValues(\.value)
        values["b"]?.size = 3
        let written = try BuildCacheFile.write(values) { key, value in
            guard let line = read[key], line.value == value else { return nil }
            return line.bytes
        }
        #expect(String(decoding: written, as: UTF8.self)
                == "{\"format\":2,\"corpora\":{\n\"a\":{\"size\":1,\"inputs\":\"x\"},\n\"b\":{\"inputs\":\"y\",\"size\":3}\n}}\n")
    }

    @Test func aFormatOneCacheIsReadWholeAndAKeyThatNeedsEscapingRoundTrips() throws {
        let old = Data("""
        {
          "corpora" : {
            "tides" : {
              "inputs" : "abc",
              "size" : 7
            }
          },
          "format" : 1
        }
        """.utf8)
        #expect(BuildCacheFile.readLines(old, as: Value.self) == nil)
        let read = try #require(BuildCacheFile.read(old, as: Value.self))
        #expect(read["tides"]?.value == Value(inputs: "abc", size: 7) && read["tides"]?.bytes == nil)

        let odd = ["say \"hi\"\\": Value(inputs: "q", size: 1), "plain": Value(inputs: "p", size: 2)]
        let data = try BuildCacheFile.write(odd) { _, _ in nil }
        // The escaped key sends the reader to the whole decode, which still reads everything.
        #expect(BuildCacheFile.readLines(data, as: Value.self) == nil)
        #expect(BuildCacheFile.read(data, as: Value.self)?.mapValues(\.value) == odd)
    }

    @Test(arguments: [
        ("a damaged value", "{\"format\":2,\"corpora\":{\n\"a\":{\"inputs\":\"x\",\"size\":\n}}\n"),
        ("a missing comma", "{\"format\":2,\"corpora\":{\n\"a\":{\"inputs\":\"x\",\"size\":1}\n\"b\":{\"inputs\":\"y\",\"size\":2}\n}}\n"),
        ("another format", "{\"format\":3,\"corpora\":{}}"),
    ])
    func aCacheThatDoesNotReadCostsARebuildNotAnError(_ what: String, _ file: String) throws {
        #expect(BuildCacheFile.readLines(Data(file.utf8), as: Value.self) == nil, "\(what)")
        #expect(BuildCacheFile.read(Data(file.utf8), as: Value.self) == nil, "\(what)")
    }

    /// A repeated key is left to the whole decode (Foundation's takes one of them): at worst that
    /// corpus's inputs do not match, and it is rebuilt.
    @Test func aRepeatedKeyIsNotReadLineByLine() {
        let file = "{\"format\":2,\"corpora\":{\n\"a\":{\"inputs\":\"x\",\"size\":1},\n\"a\":{\"inputs\":\"y\",\"size\":2}\n}}\n"
        #expect(BuildCacheFile.readLines(Data(file.utf8), as: Value.self) == nil)
        #expect(BuildCacheFile.read(Data(file.utf8), as: Value.self)?.count == 1)
    }

    /// A tree published before format 2 keeps its bundles: the first publish reads the old cache,
    /// rebuilds nothing, and writes format 2.
    @Test func aTreeWithAFormatOneCacheRebuildsNothingAndIsUpgraded() throws {
        let f = try PublishFolder("cache-upgrade")
        try f.dir.write("catalog/catalog.json", """
        {"id": "c", "title": "C", "corpora": [{"id": "tides", "version": "1", "title": "Tides", "source": "tides", "access": "free"}]}
        """)
        try f.dir.write("catalog/tides/a.md", "# A\n\nSpring tides.")
        _ = try TreePublisher.publish(catalogDirectory: f.catalog, output: f.tree, key: f.key)
        let path = "\(f.tree)/\(BuildCache.fileName)"
        let current = try #require(BuildCacheFile.read(try Data(contentsOf: URL(fileURLWithPath: path)), as: BuildCache.Entry.self))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        struct FormatOne: Encodable { var format = 1; var corpora: [String: BuildCache.Entry] }
        try encoder.encode(FormatOne(corpora: current.mapValues(\.value))).write(to: URL(fileURLWithPath: path))

        let again = try TreePublisher.publish(catalogDirectory: f.catalog, output: f.tree, key: f.key)
        #expect(again.built.isEmpty && again.reused == ["tides"])
        let upgraded = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(upgraded.starts(with: BuildCacheFile.head))
        #expect(BuildCacheFile.readLines(upgraded, as: BuildCache.Entry.self)?.mapValues(\.value) == current.mapValues(\.value))
    }
}
