import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The inclusion proofs kept with installed corpora, end to end through `corpusd publish`,
/// `corpusd serve` and `corpus`: each corpus keeps the proof alone, naming the checkpoint note that
/// the remote keeps once (`state/<remote>/log-checkpoints/<tree size>`); `corpus verify --log`
/// reports a missing or altered note without changing the home; a note no kept proof names goes
/// with the last proof that named it; a proof kept by an older client (v1, note inside) still checks.
@Suite struct LogKeptProofTests {
    let publisher = IntegrationPublisher(catalogID: "harbor")

    /// Publishes corpora alpha and beta at `version` (a new text needs a new version).
    func publish(_ text: String, version: Int, key: IntegrationPublisher.KeyPair) throws {
        try publisher.writeCatalog([.init(id: "alpha", version: "\(version)", documents: ["a.md": "# Alpha\n\n\(text)"]),
                                    .init(id: "beta", version: "1", documents: ["b.md": "# Beta\n\nbeta"])])
        let r = try publisher.publish(key: key.secret)
        #expect(r.status == 0, "\(r.stderr)")
    }

    func files(_ client: IntegrationClient, _ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: client.homeDir.url("state/main/\(folder)"))) ?? []).sorted()
    }

    func read(_ client: IntegrationClient, _ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: client.homeDir.url(path)))
    }

    /// A client with alpha and beta installed from version 1; returns it and the kept note's name.
    func installed(_ key: IntegrationPublisher.KeyPair, server: ServerProcess, name: String) throws -> (IntegrationClient, String) {
        let client = IntegrationClient(name)
        try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
        try client.must(["install", "alpha", "beta"])
        let notes = files(client, "log-checkpoints")
        #expect(notes.count == 1, "\(notes)")
        return (client, notes.first ?? "")
    }

    @Test func eachCorpusKeepsTheProofAloneAndTheRemoteKeepsTheNoteOnce() throws {
        let key = try publisher.keygen("catalog")
        try publish("one", version: 1, key: key)
        let server = try publisher.serve()
        defer { server.stop() }
        let (client, size) = try installed(key, server: server, name: "kept")
        // The note as served, once; each proof names it and holds no note.
        #expect(try read(client, "state/main/log-checkpoints/\(size)") == read(client, "state/main/checkpoint"))
        let proofs = files(client, "log-proofs")
        #expect(proofs.count == 2, "\(proofs)")
        for proof in proofs {
            let text = String(decoding: try read(client, "state/main/log-proofs/\(proof)"), as: UTF8.self)
            #expect(text.hasPrefix("corpussync-log-inclusion/v2\n") && text.hasSuffix("\ncheckpoint \(size)\n"), "\(text)")
            #expect(!text.contains("\n\n"), "no note inside: \(text)")
        }
        let r = try client.json(["verify", "--log"])
        #expect(r.status == 0, "\(r.result.stdout) \(r.result.stderr)")
        let entries = try #require(r.object["log"] as? [[String: Any]])
        #expect(entries.count == 3 && entries.allSatisfy { $0["ok"] as? Bool == true }, "\(entries)")
    }

    @Test func aMissingKeptNoteIsADamagedHomeAndAnAlteredOneIsRefusedNothingChanging() throws {
        let key = try publisher.keygen("catalog")
        try publish("one", version: 1, key: key)
        let server = try publisher.serve()
        defer { server.stop() }
        let (client, size) = try installed(key, server: server, name: "damaged")
        let notePath = client.homeDir.url("state/main/log-checkpoints/\(size)")
        let note = try read(client, "state/main/log-checkpoints/\(size)")

        try FileManager.default.removeItem(atPath: notePath)
        var before = client.snapshot
        var r = try client.json(["verify", "--log"])
        #expect(r.status == 7, "\(r.result.stdout) \(r.result.stderr)")
        var failed = try #require(r.object["log"] as? [[String: Any]]).filter { $0["ok"] as? Bool == false }
        #expect(failed.count == 2 && failed.allSatisfy { $0["corpus"] != nil }, "\(failed)")
        var error = try #require(failed.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "local-file", "\(error)")
        #expect((error["message"] as? String)?.contains("log-checkpoints/\(size), a file of this home folder, is damaged: it is missing") == true, "\(error)")
        #expect((error["hint"] as? String)?.contains("corpus sync") == true, "\(error)")
        #expect(client.snapshot == before)
        // What the hint says mends it: the proofs are kept again, with the note they name.
        try client.must(["sync"])
        #expect(try client.json(["verify", "--log"]).status == 0)
        #expect(try read(client, "state/main/log-checkpoints/\(size)") == note)

        // The same note with its root changed: the catalog key's signature no longer verifies.
        var text = String(decoding: note, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        text[2] = Data(repeating: 7, count: 32).base64EncodedString()
        try Data(text.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: notePath))
        before = client.snapshot
        r = try client.json(["verify", "--log"])
        #expect(r.status == 3, "\(r.result.stdout) \(r.result.stderr)")
        failed = try #require(r.object["log"] as? [[String: Any]]).filter { $0["ok"] as? Bool == false }
        #expect(failed.count == 2 && failed.allSatisfy { $0["corpus"] != nil }, "\(failed)")
        error = try #require(failed.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "log", "\(error)")
        #expect(client.snapshot == before)
    }

    @Test func aKeptNoteGoesWithTheLastProofThatNamesIt() throws {
        let key = try publisher.keygen("catalog")
        try publish("one", version: 1, key: key)
        let server = try publisher.serve()
        defer { server.stop() }
        let (client, first) = try installed(key, server: server, name: "garbage")
        let beta = try #require(files(client, "log-proofs").first { $0.hasPrefix("beta@") })

        // alpha updated: its old proof goes; beta's proof still names the first note, which stays.
        try publish("two", version: 2, key: key)
        try client.must(["sync"])
        let notes = files(client, "log-checkpoints")
        #expect(notes.count == 2 && notes.contains(first), "\(notes)")
        let proofs = files(client, "log-proofs")
        #expect(proofs.count == 2 && proofs.contains(beta) && !proofs.contains { $0.hasPrefix("alpha@1") }, "\(proofs)")
        #expect(try client.json(["verify", "--log"]).status == 0)

        // beta removed: the first note, which only its proof named, goes with it.
        try client.must(["remove", "beta"])
        #expect(files(client, "log-checkpoints") == notes.filter { $0 != first })
        #expect(files(client, "log-proofs").count == 1)
        try client.must(["remove", "alpha"])
        #expect(files(client, "log-checkpoints").isEmpty && files(client, "log-proofs").isEmpty)
    }

    @Test func aProofKeptByAnOlderClientWithItsNoteInsideStillChecks() throws {
        let key = try publisher.keygen("catalog")
        try publish("one", version: 1, key: key)
        let server = try publisher.serve()
        defer { server.stop() }
        let (client, _) = try installed(key, server: server, name: "older")
        // What an older client kept per corpus: the catalog's proof with the note inside (v1), no shared note.
        let v1 = try read(client, "state/main/log-inclusion")
        #expect(v1.starts(with: Data("corpussync-log-inclusion/v1\n".utf8)))
        for proof in files(client, "log-proofs") { try v1.write(to: URL(fileURLWithPath: client.homeDir.url("state/main/log-proofs/\(proof)"))) }
        try FileManager.default.removeItem(atPath: client.homeDir.url("state/main/log-checkpoints"))
        let r = try client.json(["verify", "--log"])
        #expect(r.status == 0, "\(r.result.stdout) \(r.result.stderr)")
        #expect(try #require(r.object["log"] as? [[String: Any]]).count == 3)
    }
}
