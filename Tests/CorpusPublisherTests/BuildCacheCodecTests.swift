import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `.build-cache` format 3 (`BuildCacheCodec`): every field of every entry survives a round trip,
/// a damaged cache reads as none (a rebuild, never an error), and a tree with the JSON cache of
/// formats 1 and 2 is upgraded by one publish that rebuilds nothing.
@Suite struct BuildCacheCodecTests {
    static func digest(_ n: UInt8) -> SHA256Digest { SHA256Digest(bytes: [UInt8](repeating: n, count: 32)) }

    static func entry(full: Bool, _ n: UInt8) -> BuildCache.Entry {
        let bundle = BundleRef(path: "bundles/\(digest(n).hex).corpus.zip", digest: digest(n), size: 1000 + Int64(n))
        let manifest = CachedManifest(id: "tides-\(n)", version: CorpusVersion("1.\(n)")!, title: "Tides «\(n)»", description: "Notes\non tides",
                                      language: "en", license: "CC0-1.0",
                                      embedder: EmbedderInfo(id: "minilm", dimension: 384, encoding: "int8", modelDigest: full ? digest(9) : nil),
                                      documents: 3, passages: 40 + Int(n), content: digest(n &+ 1))
        guard full else { return BuildCache.Entry(inputs: "in-\(n)", bundle: bundle, manifest: manifest) }
        var ref = DeltaRef(fromVersion: CorpusVersion("1")!, fromContent: digest(7), file: BundleRef(path: "deltas/x.delta.zip", digest: digest(8), size: 77))
        ref.payload = BundleRef(path: "payloads/y.age", digest: digest(6), size: 99)
        let stamp = FileStamp(device: 65024, inode: 123_456_789, size: 69, modified: 1_796_401_519_040_848_633, changed: -5)
        return BuildCache.Entry(inputs: "in-\(n)", bundle: bundle, manifest: manifest, sourceBundled: n % 2 == 0,
                                deltas: [BuildCache.CachedDelta(ref: ref, base: digest(4), target: digest(5)),
                                         BuildCache.CachedDelta(ref: DeltaRef(fromVersion: CorpusVersion("0.9")!, fromContent: digest(3), file: bundle),
                                                                base: digest(2), target: digest(1))],
                                sources: ["a.md": StampedDigest(stamp: stamp, sha256: digest(11)), "sub/b.txt": StampedDigest(stamp: stamp, sha256: digest(12))],
                                bundleStamp: stamp)
    }

    @Test func everyFieldRoundTrips() throws {
        var corpora = ["plain": Self.entry(full: false, 1), "full-odd": Self.entry(full: true, 3), "full-even": Self.entry(full: true, 4)]
        corpora["empty-lists"] = {
            var e = Self.entry(full: true, 5)
            e.deltas = []
            e.sources = [:]
            e.sourceBundled = nil
            return e
        }()
        let data = BuildCacheCodec.encode(corpora)
        #expect(data.starts(with: BuildCacheCodec.magic))
        #expect(BuildCacheCodec.decode(data) == corpora)
        #expect(BuildCacheCodec.decode(BuildCacheCodec.encode([:])) == [:])
    }

    /// A field added to a stored type must be written by the codec too; this count fails first.
    @Test func theCodecKnowsEveryFieldOfWhatItStores() {
        let e = Self.entry(full: true, 2)
        let counts = [
            "BuildCache.Entry": Mirror(reflecting: e).children.count,
            "CachedManifest": Mirror(reflecting: e.manifest).children.count,
            "EmbedderInfo": Mirror(reflecting: e.manifest.embedder).children.count,
            "BundleRef": Mirror(reflecting: e.bundle).children.count,
            "BuildCache.CachedDelta": Mirror(reflecting: e.deltas![0]).children.count,
            "DeltaRef": Mirror(reflecting: e.deltas![0].ref).children.count,
            "StampedDigest": Mirror(reflecting: e.sources!["a.md"]!).children.count,
            "FileStamp": Mirror(reflecting: e.bundleStamp!).children.count,
        ]
        #expect(counts == ["BuildCache.Entry": 7, "CachedManifest": 10, "EmbedderInfo": 4, "BundleRef": 3,
                           "BuildCache.CachedDelta": 3, "DeltaRef": 6, "StampedDigest": 2, "FileStamp": 5])
    }

    @Test func aDamagedCacheReadsAsNone() throws {
        let data = BuildCacheCodec.encode(["a": Self.entry(full: true, 1), "b": Self.entry(full: false, 2)])
        #expect(BuildCacheCodec.decode(data.dropLast()) == nil)
        #expect(BuildCacheCodec.decode(data + [0]) == nil)
        var otherFormat = data
        otherFormat[BuildCacheCodec.magic.count - 2] = UInt8(ascii: "4")
        #expect(BuildCacheCodec.decode(otherFormat) == nil)
        // An optional's presence byte other than 0 or 1.
        var badPresence = BuildCacheCodec.encode(["a": Self.entry(full: false, 1)])
        badPresence[badPresence.count - 1] = 7
        #expect(BuildCacheCodec.decode(badPresence) == nil)

        let f = try PublishFolder("cache-damaged")
        try FileManager.default.createDirectory(atPath: f.tree, withIntermediateDirectories: true)
        try data.dropLast(3).write(to: URL(fileURLWithPath: "\(f.tree)/\(BuildCache.fileName)"))
        #expect(BuildCache.load(tree: f.tree).corpora.isEmpty)
    }

    /// A tree published before format 3 keeps its bundles: the first publish reads the JSON cache
    /// (whole manifests, pretty-printed, as format 1 was written), rebuilds nothing, writes
    /// `.build-cache` and removes `.build-cache.json`.
    @Test func aTreeWithTheJSONCacheRebuildsNothingAndIsUpgraded() throws {
        let f = try PublishFolder("cache-upgrade")
        try f.dir.write("catalog/catalog.json", """
        {"id": "c", "title": "C", "corpora": [{"id": "tides", "version": "1", "title": "Tides", "source": "tides", "access": "free"}]}
        """)
        try f.dir.write("catalog/tides/a.md", "# A\n\nSpring tides.")
        _ = try TreePublisher.publish(catalogDirectory: f.catalog, output: f.tree, key: f.key)
        let current = BuildCache.load(tree: f.tree).corpora
        let tides = try #require(current["tides"])
        struct OldEntry: Encodable { var inputs: String; var bundle: BundleRef; var manifest: Manifest }
        struct FormatOne: Encodable { var format = 1; var corpora: [String: OldEntry] }
        let manifest = try BundleReader(path: "\(f.tree)/\(tides.bundle.path)").verifyAll(trustedKeys: [f.key.publicKey])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(FormatOne(corpora: ["tides": OldEntry(inputs: tides.inputs, bundle: tides.bundle, manifest: manifest)]))
            .write(to: URL(fileURLWithPath: "\(f.tree)/\(BuildCache.jsonFileName)"))
        unlink("\(f.tree)/\(BuildCache.fileName)")

        let again = try TreePublisher.publish(catalogDirectory: f.catalog, output: f.tree, key: f.key)
        #expect(again.built.isEmpty && again.reused == ["tides"])
        #expect(!FileIO.exists("\(f.tree)/\(BuildCache.jsonFileName)"))
        #expect(BuildCache.load(tree: f.tree).corpora["tides"]?.manifest == CachedManifest(manifest))
    }
}
