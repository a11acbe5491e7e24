import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// What a `.corpus.zip` holds, told by its member names: ours, the reader app's, the browser's
/// export, a zipped knowledge-app folder, or none of them.
@Suite struct BundleKindTests {
    static let cases: [([String], BundleKind)] = [
        (["corpus.json", "corpus.json.minisig", "pack.sqlite", "vectors.bin"], .corpusSync),
        (["corpus_meta.json", "chunks.json", "embeddings.npy"], .readerApp),
        (["Tides/", "Tides/corpus_meta.json", "Tides/chunks.json"], .readerApp),
        (["chunks.json"], .readerApp),
        (["knowledge.json", "pages/a.md"], .browserExport),
        (["Corpus/manifest.json", "Corpus/core.pack", "Corpus/gutenberg.pack"], .knowledgeApp),
        (["manifest.json", "notes.txt"], .unrecognized),
        // Our manifest decides: such a zip is checked (and refused) as a bundle.
        (["corpus.json", "chunks.json"], .corpusSync),
        (["a/corpus_meta.json", "b/chunks.json"], .unrecognized),
        ([], .unrecognized),
    ]

    @Test(arguments: cases)
    func classify(_ c: ([String], BundleKind)) {
        #expect(BundleKind.classify(c.0) == c.1, "\(c.0)")
    }

    @Test func detectReadsOnlyTheCentralDirectory() throws {
        let dir = TempDirectory("kind")
        let reader = try dir.write("r.corpus.zip", Data(ZipCrafting.build([CraftedZipEntry(name: "corpus_meta.json", stored: Array("{".utf8)),
                                                                             CraftedZipEntry(name: "chunks.json", stored: [])])))
        #expect(BundleKind.detect(path: reader) == .readerApp && BundleKind.readerApp.importFormat == "corpuskit")
        let text = try dir.write("not.zip", "not a zip")
        #expect(BundleKind.detect(path: text) == .unrecognized && BundleKind.detect(path: dir.url("missing.zip")) == .unrecognized)
    }
}
