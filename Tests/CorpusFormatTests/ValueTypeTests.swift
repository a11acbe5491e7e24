import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

@Suite struct CorpusVersionTests {
    @Test(arguments: [
        ("1", "2"), ("1.2", "1.10"), ("2026.9", "2026.11"), ("1.2", "1.2.1"), ("0.9.9.9", "1"), ("3", "10"),
    ])
    func ordering(_ lower: String, _ higher: String) throws {
        let a = try #require(CorpusVersion(lower)), b = try #require(CorpusVersion(higher))
        #expect(a < b)
        #expect(!(b < a))
    }

    @Test func missingComponentsCountAsZero() throws {
        let a = try #require(CorpusVersion("1.2")), b = try #require(CorpusVersion("1.2.0"))
        #expect(!(a < b) && !(b < a))
    }

    @Test(arguments: ["", "1.", ".1", "1..2", "a", "1.2.3.4.5", "-1", "+1", "1 ", " 1", "１", "1234567890", "1.2a"])
    func invalidVersions(_ text: String) {
        #expect(CorpusVersion(text) == nil)
        #expect(throws: FormatError.self) { try CorpusVersion.parse(text) }
    }

    @Test(arguments: ["3", "2026.11", "1.2.0", "0", "1.2.3.4", "123456789"])
    func validVersionsKeepTheirText(_ text: String) throws {
        #expect(try #require(CorpusVersion(text)).description == text)
    }
}

@Suite struct IdentifierTests {
    @Test(arguments: ["sea-guide", "a", "0abc", "a.b_c-d", String(repeating: "a", count: 64), "corpus.v2"])
    func valid(_ id: String) { #expect(Identifier.isValid(id)) }

    @Test(arguments: ["", "../x", "/abs", "a\\b", "a\0b", String(repeating: "a", count: 65), "A", "-a", ".a", "_a",
                      "a..b", "a b", "é", "a/b", "a\nb", ".."])
    func invalid(_ id: String) {
        #expect(!Identifier.isValid(id))
        #expect(throws: FormatError.self) { try Identifier.validate(id, what: "corpus id") }
    }
}

@Suite struct TimestampTests {
    @Test(arguments: ["2026-11-29T20:05:00Z", "1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2099-12-31T00:00:00Z"])
    func roundTrip(_ text: String) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(Timestamp.format(date) == text)
    }

    @Test func formatsWholeSecondsInUTC() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_800_000_000.9)) == "2027-01-15T08:00:00Z")
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2026-11-29 20:05:00Z", "2026-11-29T20:05:00", "2026-11-29T20:05:00.5Z",
                      "2026-11-29T24:00:00Z", "2026-11-29T20:60:00Z", "2026-00-10T00:00:00Z", "2026-1-29T20:05:00Z", ""])
    func invalid(_ text: String) { #expect(Timestamp.parse(text) == nil) }

    @Test(arguments: [("90s", 90.0), ("15m", 900), ("12h", 43200), ("30d", 2_592_000), ("2w", 1_209_600)])
    func durations(_ text: String, _ seconds: Double) { #expect(Timestamp.duration(text) == seconds) }

    @Test(arguments: ["", "s", "0d", "-1d", "1y", "1.5h"])
    func invalidDurations(_ text: String) { #expect(Timestamp.duration(text) == nil) }
}

@Suite struct TreePathTests {
    @Test(arguments: [
        ("bundles/00ff.corpus.zip", true), ("catalogs/7.json", true), ("a", true), ("a/b/c", true),
        ("", false), ("/abs", false), ("../x", false), ("a/../b", false), ("a/./b", false), ("a//b", false),
        ("a\\b", false), ("a\0b", false), ("a\u{1}b", false), ("a\u{7f}", false), (".hidden", false), ("a/.git/x", false),
        ("a/", false), (String(repeating: "a", count: 1025), false),
    ])
    func safety(_ path: String, _ safe: Bool) { #expect(TreePath.isSafe(path) == safe) }
}

/// The one content-addressed-name check, which the gate-only server's redirect and the object
/// store upload's order both use.
@Suite struct ContentAddressedNameTests {
    static let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    static let cases: [(String, Bool)] = {
        let sha: String = Self.sha
        let upper: String = sha.uppercased()
        let short = String(sha.dropLast())
        let notHex: String = "g" + String(sha.dropFirst())
        return [
            (sha + ".corpus.zip", true), (sha + ".embedder.zip", true), (sha + ".delta.zip", true), (sha + ".x", true),
            (sha + ".", false), (sha, false), (sha + "x.zip", false), (upper + ".corpus.zip", false),
            (short + ".corpus.zip", false), (sha + "0.corpus.zip", false), (notHex + ".zip", false),
            ("catalog.json", false), ("7.json", false), ("", false),
        ]
    }()

    @Test(arguments: cases)
    func name(_ name: String, _ addressed: Bool) { #expect(TreeLayout.isContentAddressed(name) == addressed) }
}

@Suite struct VectorFileHeaderTests {
    @Test(arguments: [(VectorFileHeader.Encoding.int8, 384, 10), (.int8, 3, 1), (.f32, 16, 5), (.int8, 16, 0)])
    func encodeThenDecode(_ encoding: VectorFileHeader.Encoding, _ dimension: Int, _ rows: Int) throws {
        let h = VectorFileHeader(encoding: encoding, dimension: dimension, rows: rows)
        let bytes = h.encoded()
        #expect(bytes.count == 64)
        #expect(Array(bytes[0..<8]) == Array("CSVECTOR".utf8))
        #expect(h.matrixOffset == 64 && h.scalesOffset % 64 == 0)
        let decoded = try bytes.withUnsafeBytes { try VectorFileHeader.decode($0, fileSize: h.fileSize) }
        #expect(decoded == h)
    }

    @Test func writerOutputMatchesItsHeader() throws {
        let dir = TempDirectory("vectors")
        let path = dir.url("v.bin")
        let w = try VectorFileWriter(path: path, encoding: .int8, dimension: 5, rows: 3)
        for r in 0..<3 { try w.append([1, -2, 3, 0, Float(r)]) }
        try w.finish()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let h = try data.withUnsafeBytes { try VectorFileHeader.decode($0, fileSize: data.count) }
        #expect(h == VectorFileHeader(encoding: .int8, dimension: 5, rows: 3))
        // Row 0 quantized: max |v| = 3 maps to 127.
        #expect(Array(data[64..<69]).map { Int8(bitPattern: $0) } == [42, -85, 127, 0, 0])
    }

    /// The vectorized quantizer gives exactly what the plain definition gives: q = round(v · 127 /
    /// max|v|) half away from zero, scale = max|v| / 127; here on lengths with and without a
    /// 16-lane remainder, values that land on .5 after scaling, and an all-zero vector.
    @Test(arguments: [1, 5, 16, 17, 384, 390])
    func quantizerMatchesItsDefinition(dimension: Int) {
        var rng = SplitMix64(seed: UInt64(dimension))
        for trial in 0..<200 {
            let v: [Float] = (0..<dimension).map { _ in
                let x = Float(Int64(bitPattern: rng.next()) >> 40) / Float(1 << 23)
                // Every seventh trial is on a coarse grid, so scaled values hit exact halves.
                return trial == 1 ? 0 : trial % 7 == 0 ? (x * 254).rounded() / 254 : x
            }
            let maxAbs = v.reduce(Float(0)) { max($0, abs($1)) }
            let expected: [Int8] = maxAbs == 0 ? [Int8](repeating: 0, count: dimension)
                : v.map { Int8(clamping: Int(($0 * (127 / maxAbs)).rounded())) }
            let (q, scale) = Int8Quantizer.quantize(v)
            #expect(q == expected, "dimension \(dimension), trial \(trial)")
            #expect(scale == maxAbs / 127)
        }
    }

    @Test func writerCountsRowsWhenNotToldHowMany() throws {
        let dir = TempDirectory("vectors-unknown")
        let rows: [[Float]] = (0..<7).map { r in (0..<5).map { Float(($0 + 1) * (r % 3 == 0 ? -1 : 1)) } }
        let known = try VectorFileWriter(path: dir.url("known.bin"), encoding: .int8, dimension: 5, rows: rows.count)
        let counted = try VectorFileWriter(path: dir.url("counted.bin"), encoding: .int8, dimension: 5, rows: nil)
        for r in rows {
            try known.append(r)
            let (q, s) = Int8Quantizer.quantize(r)
            try counted.append(quantized: q, scale: s)
        }
        try known.finish()
        try counted.finish()
        let a = try Data(contentsOf: URL(fileURLWithPath: dir.url("known.bin")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: dir.url("counted.bin")))))
        #expect(try a.withUnsafeBytes { try VectorFileHeader.decode($0, fileSize: a.count) }.rows == 7)
    }

    static func corrupt(_ mutate: (inout [UInt8]) -> Void) -> [UInt8] {
        var b = VectorFileHeader(encoding: .int8, dimension: 16, rows: 4).encoded()
        mutate(&b)
        return b
    }

    static let good = VectorFileHeader(encoding: .int8, dimension: 16, rows: 4)

    @Test func refusals() {
        let cases: [([UInt8], Int, FormatError)] = [
            (Self.corrupt { $0[0] = UInt8(ascii: "X") }, Self.good.fileSize, .malformed(what: "vector file", reason: "missing CSVECTOR header")),
            (Array(Self.good.encoded().prefix(40)), Self.good.fileSize, .malformed(what: "vector file", reason: "missing CSVECTOR header")),
            (Self.corrupt { $0[8] = 2 }, Self.good.fileSize, .unsupported(what: "vector file", reason: "format version 2")),
            (Self.corrupt { $0[12] = 9 }, Self.good.fileSize, .malformed(what: "vector file", reason: "unknown encoding 9")),
            (Self.corrupt { $0[16] = 0 }, Self.good.fileSize, .malformed(what: "vector file", reason: "dimension 0 out of range")),
            (Self.corrupt { $0[31] = 0x01 }, Self.good.fileSize, .malformed(what: "vector file", reason: "row count out of range")),
            (Self.corrupt { $0[32] = 128 }, Self.good.fileSize, .malformed(what: "vector file", reason: "offsets do not match the layout")),
            (Self.good.encoded(), Self.good.fileSize + 1,
             .malformed(what: "vector file", reason: "file is \(Self.good.fileSize + 1) bytes, the header implies \(Self.good.fileSize)")),
        ]
        for (bytes, size, expected) in cases {
            #expect(throws: expected) { try bytes.withUnsafeBytes { try VectorFileHeader.decode($0, fileSize: size) } }
        }
    }
}

@Suite struct PassageIDTests {
    @Test func knownAnswerAndStability() {
        // sha256("passage-v1\0guide/install.md\0Install > Linux\0" "3\0Run the installer.\0")[:16], from Python's hashlib.
        let id = PassageID.make(documentPath: "guide/install.md", section: "Install > Linux", ordinal: 3, text: "Run the installer.")
        #expect(id == "2e05a9d7ac70eccae7acb128201cfec8")
        #expect(PassageID.make(documentPath: "guide/install.md", section: "Install > Linux", ordinal: 3, text: "Run the installer.") == id)
    }

    @Test func everyFieldMatters() {
        let base = PassageID.make(documentPath: "a.md", section: "s", ordinal: 1, text: "t")
        let variants = [
            PassageID.make(documentPath: "b.md", section: "s", ordinal: 1, text: "t"),
            PassageID.make(documentPath: "a.md", section: "s2", ordinal: 1, text: "t"),
            PassageID.make(documentPath: "a.md", section: "s", ordinal: 2, text: "t"),
            PassageID.make(documentPath: "a.md", section: "s", ordinal: 1, text: "t2"),
            // The NUL separators keep field boundaries apart.
            PassageID.make(documentPath: "a.mds", section: "", ordinal: 1, text: "t"),
        ]
        for v in variants { #expect(v != base) }
        #expect(Set(variants).count == variants.count)
    }
}

@Suite struct ContentDigestTests {
    @Test func orderIndependentWithKnownAnswer() {
        let ids = [String(repeating: "b", count: 32), String(repeating: "a", count: 32), String(repeating: "c", count: 32)]
        let d = ContentDigest.make(passageIDs: ids, embedderID: "hash-uni-bi-384-v1")
        #expect(d.hex == "9d319b38f9f2ff907cfb7b70f15c82a5daf57a567788486772338356d34119e7")
        #expect(ContentDigest.make(passageIDs: ids.reversed(), embedderID: "hash-uni-bi-384-v1") == d)
        #expect(ContentDigest.make(passageIDs: Set(ids), embedderID: "hash-uni-bi-384-v1") == d)
        #expect(ContentDigest.make(passageIDs: ids, embedderID: "minilm") != d)
        #expect(ContentDigest.make(passageIDs: ids.dropLast(), embedderID: "hash-uni-bi-384-v1") != d)
    }
}
