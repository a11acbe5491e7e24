import Foundation
import CorpusFormat
import CorpusEngine
import CorpusTestSupport

/// The zip readers of signed containers and of other apps' archives: the raw central-directory
/// pre-check (`ZipCentralDirectory`, run first by every one of them), `BundleReader`,
/// `EmbedderArtifactReader`, `DeltaReader`, `ForeignArchive` and `BundleKind`, on a file in the
/// scratch folder (these readers take a path: they open the file once and keep the descriptor).
///
/// Byte 0: bit 0 the input shape (`ZipInput`), bits 1-3 the reader. Properties: nothing traps; a
/// container that verifies against the pinned key was signed by it, and extracting a verified
/// bundle writes only its allowlisted members.
func fuzzZipBundle(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let path = FuzzScratch.file("archive.zip", ZipInput.archive(&input, mode: mode))
    let keys = FuzzKeys.trusted
    switch (mode >> 1) % 5 {
    case 0:
        guard let reader = try? BundleReader(path: path), let verified = try? reader.manifest(trustedKeys: keys) else { return 0 }
        let out = FuzzScratch.emptyFolder("extracted")
        if (try? reader.extract(verified, into: out)) != nil {
            let written = Set((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])
            fuzzAssert(written.isSubset(of: Set(BundleLayout.allMembers)), "extracted \(written.sorted())")
        }
    case 1:
        guard let reader = try? EmbedderArtifactReader(path: path) else { return 0 }
        _ = try? reader.verifyAll(trustedKeys: keys)
    case 2:
        guard let reader = try? DeltaReader(path: path), let document = try? reader.document(trustedKeys: keys) else { return 0 }
        _ = try? reader.manifest(of: document, trustedKeys: keys)
        _ = try? reader.changes(of: document)
        _ = try? reader.extractVectors(of: document, to: FuzzScratch.folder + "/delta-vectors.bin")
    case 3:
        guard let archive = try? ForeignArchive(path: path) else { return 0 }
        for name in archive.names.prefix(8) { _ = try? archive.read(name, limit: 1 << 20) }
    default:
        _ = BundleKind.detect(path: path)
    }
    return 0
}

func initializeZipBundle(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked(ZipBundleSeeds.all)
    return 0
}

/// A real signed bundle, embedder artifact and delta made by the project's writers, each raw and
/// as members, for every reader; and a foreign archive of the reader app's shape.
enum ZipBundleSeeds {
    static func all() throws -> [(String, [UInt8])] {
        let work = FuzzScratch.emptyFolder("seeds")
        let pack = PackFixture(id: "field-guide", version: "2", texts: ["tides.md": ["The tide comes in over the shoal.", "Ebb and flood."],
                                                                        "knots.md": ["A bowline holds."]])
        let folder = work + "/bundle"
        try pack.write(to: folder)
        let unsigned = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(BundleLayout.manifest)")))
        let bundle = work + "/field-guide.corpus.zip"
        let manifest = try BundleWriter.write(manifest: unsigned, packPath: "\(folder)/\(BundleLayout.pack)",
                                              vectorsPath: "\(folder)/\(BundleLayout.vectors)", key: FuzzKeys.secret, to: bundle)

        let model = work + "/model"
        try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
        for (name, text) in [("config.json", #"{"hidden_size":4}"#), ("tokenizer_config.json", "{}"), ("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\ntide\n"),
                             ("model.safetensors", "\u{8}\0\0\0\0\0\0\0{}      ")] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(model)/\(name)"))
        }
        let artifact = work + "/model.embedder.zip"
        try EmbedderArtifactWriter.write(modelDirectory: model, id: "tiny-4", dimension: 4, key: FuzzKeys.secret, to: artifact)

        let manifestBytes = try manifest.canonicalBytes()
        let signature = try FuzzKeys.secret.sign(manifestBytes, trustedComment: manifest.trustedComment).fileText
        let d = SHA256Digest(bytes: [UInt8](repeating: 7, count: 32))
        let document = DeltaDocument(id: manifest.id, from: .init(version: CorpusVersion("1")!, content: d, vectors: d, rows: d),
                                     to: .init(version: manifest.version, content: manifest.content, manifest: SHA256.digest(manifestBytes)),
                                     rows: .init(removed: 0, kept: 2, added: 1))
        let delta = work + "/field-guide.delta.zip"
        try DeltaWriter.write(document: document, manifest: manifestBytes, manifestSignature: signature,
                              changes: Data(#"{"added":[],"removed":[]}"#.utf8), vectorsPath: "\(folder)/\(BundleLayout.vectors)",
                              key: FuzzKeys.secret, to: delta)

        let foreign = work + "/reader.corpus.zip"
        try ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 2, window: 12, overlap: 3).write(to: foreign)

        var seeds: [(String, [UInt8])] = []
        for (n, label) in [(0, "bundle"), (1, "artifact"), (2, "delta"), (3, "foreign"), (4, "kind")] {
            let (file, members): (String, [String]) = switch n {
            case 1: (artifact, [EmbedderArtifactLayout.manifest, EmbedderArtifactLayout.signature] + EmbedderArtifactLayout.payloadMembers)
            case 2: (delta, DeltaLayout.allMembers)
            case 3: (foreign, ["corpus_meta.json", "chunks.json"])
            default: (bundle, BundleLayout.allMembers)
            }
            for (name, bytes) in try ZipInput.seeds(label, zip: file, members: members) {
                seeds.append((name, [bytes[0] | UInt8(n << 1)] + bytes.dropFirst()))
            }
        }
        return seeds
    }
}
