import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// `corpus import FILE --trust KEY` remembers the key it trusted (`trust/local/<keyid>.pub`), so
/// `corpus verify` can check the imported corpus later; and an import past the import limit is
/// refused before anything is extracted.
@Suite struct ImportTrustTests {
    /// A key pair and a bundle `corpusd build` signed with it (no catalog, no remote).
    final class HandBundles: @unchecked Sendable {
        let work = TempDirectory("hand-bundles")
        let keyPath: String
        let pubPath: String

        init() throws {
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", work.url("keys"), "--name", "friend"])
            guard r.status == 0 else { throw IntegrationError("keygen: \(r.stderr)") }
            keyPath = work.url("keys/friend.key")
            pubPath = work.url("keys/friend.pub")
        }

        func build(_ id: String, words: String) throws -> String {
            for (path, text) in PublishedCorpusTree.documents(words, seed: UInt64(id.utf8.count)) { try work.write("src-\(id)/\(path)", text) }
            let out = work.url("\(id).corpus.zip")
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["build", work.url("src-\(id)"), "--id", id, "--version", "1",
                                                                  "--key", keyPath, "--out", out, "--quiet"], timeout: 120)
            guard r.status == 0 else { throw IntegrationError("build: \(r.stderr)") }
            return out
        }
    }

    @Test func verifyUsesTheKeyTheImportWasTrustedWith() async throws {
        let bundles = try HandBundles()
        let file = try bundles.build("letters", words: "tidewater correspondence")
        let client = PublishedTreeClient()
        let imported = try client.run(["import", file, "--trust", bundles.pubPath])
        #expect(imported.status == 0, "\(imported.stderr)")
        let keyID = try PublicKey(contentsOf: bundles.pubPath).keyID.description
        #expect(client.entries("trust/local") == ["\(keyID).pub"])
        #expect(try PublicKey(contentsOf: "\(client.home)/trust/local/\(keyID).pub") == PublicKey(contentsOf: bundles.pubPath))

        let verified = try client.json(["verify"])
        #expect(verified.result.status == 0, "\(verified.result.stdout) \(verified.result.stderr)")
        #expect((verified.object?["verified"] as? [[String: Any]])?.map { $0["ok"] as? Bool } == [true])

        // The remembered key does not excuse damage.
        try flipByte("\(client.home)/corpora/local/letters/versions/1/pack.sqlite")
        let damaged = try client.json(["verify"])
        #expect(damaged.result.status == 3, "\(damaged.result.stdout)")
        let error = (damaged.object?["verified"] as? [[String: Any]])?.first?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "integrity", "\(String(describing: error))")
        #expect((error?["message"] as? String)?.contains("pack.sqlite") == true, "\(String(describing: error))")
    }

    @Test func anImportOverTheLimitIsRefusedBeforeAnythingIsExtracted() async throws {
        let bundles = try HandBundles()
        let first = try bundles.build("letters", words: "tidewater correspondence")
        let second = try bundles.build("ledgers", words: "tidewater accounts")
        let client = PublishedTreeClient()
        try FileManager.default.createDirectory(atPath: client.home, withIntermediateDirectories: true)
        try Data(#"{"remotes": [], "import_limit": 1}"#.utf8).write(to: URL(fileURLWithPath: client.home + "/config.json"))
        #expect(try client.run(["import", first, "--trust", bundles.pubPath]).status == 0)

        // Killed the moment extraction begins: only a refusal made before it exits cleanly.
        let before = client.snapshot
        let (r, object) = try client.json(["import", second, "--trust", bundles.pubPath], env: ["CORPUS_TEST_KILL_AT": "extracting:pack.sqlite"])
        #expect(r.status == 4, "exit \(r.status): \(r.stdout) \(r.stderr)")
        #expect(InstalledPairFixture.error(object)?["code"] as? String == "import-limit")
        #expect(client.snapshot == before, "home changed:\n\(before)\n---\n\(client.snapshot)")
        #expect(client.entries("staging").isEmpty)
    }
}
