import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Paths a catalog folder's `catalog.json` names: relative ones are joined to the catalog folder,
/// absolute ones are used as they are (they were joined to it, `CATALOG//abs/path`, and not found).
@Suite struct CatalogPathTests {
    @Test func absoluteSourceBundleAndModelPathsAreUsedAsTheyAre() throws {
        let dir = TempDirectory("catalog-paths")
        let key = try SecretKey.generate()
        try dir.write("elsewhere/docs/tides.md", "# Tides\n\nSpring tides follow the new moon.")
        let prebuilt = try CorpusBuilder.build(BuildOptions(source: dir.url("elsewhere/docs"), id: "atlas", version: CorpusVersion("2")!, title: "Atlas"),
                                               key: key, output: dir.url("elsewhere/atlas.corpus.zip"))
        try FileManager.default.createDirectory(atPath: dir.url("elsewhere/model"), withIntermediateDirectories: true)
        try dir.write("catalog/catalog.json", """
        {"id": "c", "title": "C", "embedders": [{"id": "all-MiniLM-L6-v2", "source": "\(dir.url("elsewhere/model"))"}],
         "corpora": [{"id": "docs", "version": "1", "source": "\(dir.url("elsewhere/docs"))", "access": "free", "embedder": "all-MiniLM-L6-v2"},
                     {"id": "atlas", "version": "2", "bundle": "\(dir.url("elsewhere/atlas.corpus.zip"))", "access": "free"}]}
        """)
        var fallbacks: [String] = []
        let summary = try TreePublisher.publish(catalogDirectory: dir.url("catalog"), output: dir.url("public"), key: key) { step in
            if case let .embedderFallback(_, _, _, reason) = step { fallbacks.append(reason) }
        }
        #expect(summary.built == ["docs", "atlas"])
        #expect(summary.catalog.corpora.map(\.documents) == [1, 1])
        #expect(summary.catalog.corpora[1].content == prebuilt.manifest.content)
        // The model folder named absolutely is the one looked in (it is empty, hence the fallback).
        #expect(fallbacks == ["\(dir.url("elsewhere/model")) has no config.json (run scripts/fetch-model.sh to fetch the weights)"])
    }

    @Test func anAbsoluteSourceThatDoesNotExistIsNamedAsItIs() throws {
        let dir = TempDirectory("catalog-paths")
        try dir.write("catalog/catalog.json", #"{"id":"c","title":"C","corpora":[{"id":"a","version":"1","source":"/nonexistent/docs","access":"free"}]}"#)
        #expect(throws: PublisherError.sourceNotFound(path: "/nonexistent/docs")) {
            try TreePublisher.publish(catalogDirectory: dir.url("catalog"), output: dir.url("public"), key: try SecretKey.generate())
        }
        #expect(!FileIO.exists(dir.url("public")))
    }

    @Test(arguments: [("docs", "CAT/docs"), ("../docs", "CAT/../docs"), ("/srv/docs", "/srv/docs"), ("./a/b", "CAT/./a/b")])
    func pathsResolveAgainstTheCatalogFolderUnlessAbsolute(named: String, expected: String) {
        #expect(CatalogSource.locate(named, in: "CAT") == expected)
    }
}
