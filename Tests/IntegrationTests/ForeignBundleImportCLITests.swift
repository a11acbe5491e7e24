import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpus import` given another app's corpus: the reader app names its bundles `.corpus.zip`
/// too. The file is fine, it is another kind: a user's mistake (exit 2, `foreign-bundle`) with
/// the command that converts it, not an unsafe archive (it was `unsafe-input`, exit 3, "member
/// corpus_meta.json is not allowed in a corpus bundle … tell its publisher"), and the home stays
/// as it was.
@Suite struct ForeignBundleImportCLITests {
    static func expectForeign(_ run: ImportCLIRun, _ path: String, message: String, hint: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        _ = try run.client.run(["list"])
        let before = run.client.snapshot
        let text = try run.client.run(["import", path, "--trust", run.pub])
        #expect(text.status == 2, "\(text.stderr)", sourceLocation: sourceLocation)
        #expect(text.stderr == "error: \(message) (\(hint))\n", sourceLocation: sourceLocation)
        let (json, object) = try run.client.json(["import", path, "--trust", run.pub])
        let error = object?["error"] as? [String: Any]
        #expect(json.status == 2 && error?["code"] as? String == "foreign-bundle" && error?["message"] as? String == message
                && error?["hint"] as? String == hint, "\(json.stdout)", sourceLocation: sourceLocation)
        #expect(run.client.snapshot == before, "the import changed the home", sourceLocation: sourceLocation)
    }

    @Test func aReaderAppCorpusIsToldApartAndTheConversionNamed() throws {
        let run = try ImportCLIRun()
        let path = run.work.url("tides.corpus.zip")
        try ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 3).write(to: path)
        try Self.expectForeign(run, path, message: "\(path) is a reader-app corpus (it holds corpus_meta.json and chunks.json), not a CorpusSync bundle; nothing was imported",
                               hint: "convert it into a bundle first: corpusd build \(path) --from corpuskit --id ID --version 1 --key KEY --out ID-1.corpus.zip, then corpus import ID-1.corpus.zip")
        // Once converted, the same corpus imports.
        let built = try run.build(path, from: "corpuskit", id: "tides")
        try #require(built.result.status == 0, "\(built.result.stderr)")
        let imported = try run.importBundle(built.bundle)
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test func aBrowserExportIsToldApartToo() throws {
        let run = try ImportCLIRun()
        let path = run.work.url("library.zip")
        try BrowserExportFixture(pages: 2, paragraphsPerPage: 1).write(to: path)
        try Self.expectForeign(run, path, message: "\(path) is a browser library export (it holds knowledge.json), not a CorpusSync bundle; nothing was imported",
                               hint: "convert it into a bundle first: corpusd build \(path) --from lumen --id ID --version 1 --key KEY --out ID-1.corpus.zip, then corpus import ID-1.corpus.zip")
    }

    /// A zip that holds our manifest beside a reader app's files is no reader-app corpus: it is
    /// checked as a bundle, and refused as one with a member off the allowlist (exit 3).
    @Test func aBundleWithForeignMembersIsStillRefusedAsUnsafe() throws {
        let run = try ImportCLIRun()
        let path = run.work.url("mixed.corpus.zip")
        try Data(ZipCrafting.build([CraftedZipEntry(name: "corpus.json", stored: Array("{}".utf8)),
                                    CraftedZipEntry(name: "chunks.json", stored: Array("[]".utf8))])).write(to: URL(fileURLWithPath: path))
        _ = try run.client.run(["list"])
        let before = run.client.snapshot
        let (r, object) = try run.client.json(["import", path, "--trust", run.pub])
        #expect(r.status == 3 && (object?["error"] as? [String: Any])?["code"] as? String == "unsafe-input", "\(r.stdout)")
        #expect(run.client.snapshot == before)
    }
}
