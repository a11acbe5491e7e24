import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The real `corpusd` binary: build, publish and rotate-key as an operator runs them.
@Suite struct CorpusdPublisherCommandTests {
    func corpusd(_ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpusd, args, timeout: 120)
    }

    @Test func buildPublishRotateFromTheCommandLine() throws {
        let dir = TempDirectory("corpusd-publisher")
        #expect(try corpusd(["keygen", "--out", dir.url("keys"), "--name", "root"]).status == 0)
        #expect(try corpusd(["keygen", "--out", dir.url("keys"), "--name", "next"]).status == 0)
        try dir.write("src/guide/chapter1.md", "# Chapter 1\n\n## Tides\n\nTide tables for coastal sailors.")
        try dir.write("src/junk.bin", Data([0, 1, 2]))

        let build = try corpusd(["build", dir.url("src"), "--id", "sea-guide", "--version", "1", "--title", "Sea guide",
                                 "--key", dir.url("keys/root.key"), "--out", dir.url("sea.corpus.zip"), "--json"])
        #expect(build.status == 0, "\(build.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(build.stdout.utf8)) as? [String: Any])
        #expect(json["passages"] as? Int == 1)
        #expect((json["skipped"] as? [[String: String]])?.first?["path"] == "junk.bin")

        let empty = try corpusd(["build", dir.url("keys"), "--id", "x", "--version", "1", "--key", dir.url("keys/root.key"),
                                 "--out", dir.url("x.corpus.zip")])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("refusing to write an empty bundle"))
        #expect(!FileIO.exists(dir.url("x.corpus.zip")))

        try dir.write("catalog/catalog.json", #"{"id":"cli","title":"CLI","corpora":[{"id":"sea","version":"1","source":"../src","access":"free"}]}"#)
        let publish = try corpusd(["publish", dir.url("catalog"), "--out", dir.url("public"), "--key", dir.url("keys/root.key"), "--expires", "2w"])
        #expect(publish.status == 0, "\(publish.stderr)")
        #expect(try PublisherFixtures.minisignVerify(dir.url("public/catalogs/1.json"), publicKey: dir.url("keys/root.pub")).status == 0)

        let wrong = try corpusd(["publish", dir.url("catalog"), "--out", dir.url("public"), "--key", dir.url("keys/next.key")])
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("is not the tree's current root key"))

        let rotate = try corpusd(["rotate-key", "--out", dir.url("public"), "--key", dir.url("keys/root.key"), "--new-key", dir.url("keys/next.key")])
        #expect(rotate.status == 0, "\(rotate.stderr)")
        #expect(try PublisherFixtures.minisignVerify(dir.url("public/keys/root-2.json"), publicKey: dir.url("keys/root.pub")).status == 0)
        let old = try corpusd(["publish", dir.url("catalog"), "--out", dir.url("public"), "--key", dir.url("keys/root.key")])
        #expect(old.status == 3)
        let next = try corpusd(["publish", dir.url("catalog"), "--out", dir.url("public"), "--key", dir.url("keys/next.key"), "--json"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try PublisherFixtures.minisignVerify(dir.url("public/catalogs/2.json"), publicKey: dir.url("keys/next.pub")).status == 0)
    }
}
