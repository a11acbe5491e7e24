import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Symbolic links in a source folder: nothing outside the folder is ever read into a bundle.
///
/// The attack (found in an outside pass): a link named `notes.txt` pointing at the signing key put
/// the secret key into a public, searchable bundle.
@Suite struct SourceFolderLinkTests {
    static let leaving = "symbolic link leaving the source folder"

    /// A source folder beside an `outside` folder holding a secret key, an EPUB and a folder of
    /// documents, with links of every kind from the source folder into both.
    final class Fixture {
        let dir = TempDirectory("links")
        let key: SecretKey
        let secret: SecretKey
        var src: String { dir.url("src") }
        /// The base64 line of the secret key file: what must never reach a bundle.
        var secretLine: String { secret.fileText.split(separator: "\n").map(String.init).first { !$0.hasPrefix("untrusted") }! }

        init() throws {
            key = try SecretKey.generate()
            secret = try SecretKey.generate()
            try dir.write("outside/root.key", secret.fileText)
            try dir.write("outside/folder/leak.md", "# Leak\n\nOutsidewords from a folder outside the source.")
            try PublisherFixtures.writeEPUB(dir.url("outside/book.epub"), title: "Outside book", chapters: [
                ("ch1.xhtml", PublisherFixtures.xhtml(title: "Outside", body: "<p>Outsidebookwords in an EPUB.</p>")),
            ])
            try dir.write("src/intro.md", "# Intro\n\nInsidewords of the real folder.")
            try dir.write("src/real/chapter.md", "# Chapter\n\nChapterwords reached through a link inside.")
            try dir.write("src/.private/secret.txt", "Private\n\nDotfilewords behind a link.")
            try link("notes.txt", to: dir.url("outside/root.key"))               // absolute, to a file outside
            try link("relative.txt", to: "../outside/root.key")                   // relative, to a file outside
            try link("sub/up.txt", to: "../../outside/root.key")                  // relative from a subfolder
            try link("docs-outside", to: dir.url("outside/folder"))              // absolute, to a folder outside
            try link("rel-folder", to: "../outside/folder")                       // relative, to a folder outside
            try link("book.epub", to: "../outside/book.epub")                     // an EPUB outside
            try link("alias.md", to: "real/chapter.md")                           // a file inside: followed
            try link("folder-alias", to: "real")                                  // a folder inside: not followed
            try link("hidden-link.txt", to: ".private/secret.txt")                // a dotfile inside: not followed
            try link("dangling.txt", to: "nowhere.txt")
            try link("loop.txt", to: "loop.txt")
        }

        func link(_ name: String, to target: String) throws {
            let path = "\(src)/\(name)"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }

        static let expectedSkips: [String: String] = [
            "notes.txt": leaving, "relative.txt": leaving, "sub/up.txt": leaving, "docs-outside": leaving,
            "rel-folder": leaving, "book.epub": leaving,
            "folder-alias": "symbolic link to a folder (folder links are not followed)",
            "hidden-link.txt": "symbolic link to a hidden file or folder",
            "dangling.txt": "broken symbolic link", "loop.txt": "broken symbolic link",
        ]

        func options() -> BuildOptions { BuildOptions(source: src, id: "links", version: CorpusVersion("1")!, title: "Links") }
    }

    @Test func linksLeavingTheFolderAreSkippedWithAReasonAndLinksInsideAreFollowed() throws {
        let f = try Fixture()
        let result = try Ingest.folder(f.src)
        #expect(result.documents.map(\.path) == ["alias.md", "intro.md", "real/chapter.md"])
        #expect(result.documents[0].sections.flatMap(\.paragraphs) == ["Chapterwords reached through a link inside."])
        #expect(Dictionary(uniqueKeysWithValues: result.skipped.map { ($0.path, $0.reason) }) == Fixture.expectedSkips)
        #expect(result.skipped.map(\.path) == result.skipped.map(\.path).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    @Test func theSecretKeyOutsideNeverReachesTheBuiltPack() throws {
        let f = try Fixture()
        let summary = try CorpusBuilder.build(f.options(), key: f.key, output: f.dir.url("out/links.corpus.zip"))
        #expect(Dictionary(uniqueKeysWithValues: summary.skipped.map { ($0.path, $0.reason) }) == Fixture.expectedSkips)
        let pack = try PackInspection(bundle: summary.output, key: f.key.publicKey)
        #expect(try pack.documentPaths() == ["alias.md", "intro.md", "real/chapter.md"])
        let everything = try pack.everything()
        #expect(everything.contains("Insidewords"))
        for leaked in [f.secretLine, "Outsidewords", "Outsidebookwords", "Dotfilewords", "untrusted comment"] {
            #expect(!everything.contains(leaked), "\(leaked) reached the pack")
        }
        #expect(try pack.matching("outsidewords").isEmpty)
    }

    /// A file listed as a regular file and replaced by a link before it is read is not followed:
    /// the reader opens every component without following links.
    @Test func aFileSwappedForALinkAfterListingIsNotFollowed() throws {
        let f = try Fixture()
        try f.dir.write("src/swap.txt", "Swap\n\nHarmless words.")
        let folder = try SourceFolder(f.src)
        let listing = try folder.list()
        #expect(listing.files.map(\.path).contains("swap.txt"))
        unlink("\(f.src)/swap.txt")
        try f.link("swap.txt", to: f.dir.url("outside/root.key"))
        // The same for a folder on the way to a listed file.
        FileIO.remove("\(f.src)/real")
        try f.link("real", to: f.dir.url("outside/folder"))
        try FileManager.default.createSymbolicLink(atPath: f.dir.url("outside/folder/chapter.md"), withDestinationPath: f.dir.url("outside/root.key"))

        var documents: [SourceDocument] = []
        let skipped = try Ingest.folder(folder, files: listing.files, filesPerGroup: 4, width: 2, prepare: { _ in () }) { group in
            documents += group.map(\.document)
        }
        #expect(documents.map(\.path) == ["intro.md"])
        let reasons = Dictionary(uniqueKeysWithValues: skipped.map { ($0.path, $0.reason) })
        #expect(reasons["swap.txt"] == "replaced by a symbolic link after the folder was listed")
        #expect(reasons["real/chapter.md"] == "replaced by a symbolic link after the folder was listed")
        #expect(reasons["alias.md"] == "replaced by a symbolic link after the folder was listed")
        #expect(!documents.flatMap { $0.sections.flatMap(\.paragraphs) }.joined().contains(f.secretLine))
    }

    @Test func corpusdBuildSkipsTheLinksAndThePackHoldsNoSecret() throws {
        let f = try Fixture()
        let keyPath = try f.dir.write("keys/root.key", f.key.fileText)
        let out = f.dir.url("links.corpus.zip")
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", f.src, "--id", "links", "--version", "1", "--key", keyPath,
                                                              "--out", out, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let skipped = try #require(json["skipped"] as? [[String: String]])
        #expect(Dictionary(uniqueKeysWithValues: skipped.map { ($0["path"]!, $0["reason"]!) }) == Fixture.expectedSkips)
        #expect(json["documents"] as? Int == 3)
        let everything = try PackInspection(bundle: out, key: f.key.publicKey).everything()
        #expect(!everything.contains(f.secretLine))

        let text = try ProcessRunner.run(BuiltProducts.corpusd, ["build", f.src, "--id", "links", "--version", "1", "--key", keyPath,
                                                                 "--out", f.dir.url("again.corpus.zip")])
        #expect(text.status == 0)
        #expect(text.stderr.contains("skipped notes.txt: \(Self.leaving)"))
        #expect(text.stderr.contains("skipped docs-outside: \(Self.leaving)"))
    }

    @Test func corpusdPublishSkipsTheLinksToo() throws {
        let f = try Fixture()
        let keyPath = try f.dir.write("keys/root.key", f.key.fileText)
        try f.dir.write("catalog/catalog.json", #"{"id":"links","title":"Links","corpora":[{"id":"links","version":"1","source":"../src","access":"free"}]}"#)
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["publish", f.dir.url("catalog"), "--out", f.dir.url("public"), "--key", keyPath])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("links: skipped notes.txt: \(Self.leaving)"))
        #expect(r.stderr.contains("links: skipped book.epub: \(Self.leaving)"))
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: f.dir.url("public/catalogs/1.json"))))
        let bundle = f.dir.url("public/\(catalog.corpora[0].bundle.path)")
        #expect(!(try PackInspection(bundle: bundle, key: f.key.publicKey).everything()).contains(f.secretLine))
    }

    /// An EPUB is a zip read from inside the archive only: a package path or chapter that climbs out,
    /// or is absolute, is refused.
    @Test(arguments: ["../content.opf", "/content.opf", "OEBPS/../../content.opf"])
    func anEPUBWhosePackagePathLeavesTheBookIsSkipped(opf: String) throws {
        let dir = TempDirectory("epub-escape")
        let container = """
        <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
        <rootfiles><rootfile full-path="\(opf)" media-type="application/oebps-package+xml"/></rootfiles></container>
        """
        try PublisherFixtures.writeZip(dir.url("bad.epub"), members: [("mimetype", "application/epub+zip"), ("META-INF/container.xml", container),
                                                                      (opf, "<package><spine/></package>")])
        try dir.write("ok.md", "# Ok\n\ntext")
        let result = try Ingest.folder(dir.path)
        #expect(result.documents.map(\.path) == ["ok.md"])
        #expect(result.skipped == [SkippedFile(path: "bad.epub", reason: "corrupt EPUB: package path \(opf.debugDescription) leaves the book")])
    }

    @Test(arguments: ["../x.xhtml", "/etc/passwd", "a/../../x", "a\\b", "a\u{0}b", "", "a//b", "./a"])
    func theEPUBReaderRefusesMemberNamesThatAreNotPlainPathsInside(name: String) throws {
        let dir = TempDirectory("zip-names")
        try PublisherFixtures.writeZip(dir.url("a.zip"), members: [("mimetype", "x")])
        let file = try FileHandleReader(path: dir.url("a.zip"))
        let zip = try ZipReader(duplicating: file.descriptor, path: dir.url("a.zip"))
        #expect(throws: FormatError.unsafeMemberName(name)) { try zip.read(name, limit: 100) }
        // What an EPUB's skip reason says of it.
        #expect(IngestEPUB.reason(.unsafeMemberName(name)) == "member name \(name.debugDescription) is not a plain path inside the archive")
    }
}
