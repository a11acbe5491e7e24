import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// Entitled corpora published as age payloads (`corpusd publish --key-store DIR --gate-url URL`):
/// a mirror that holds no token and no key carries them, the gate (`corpusd serve --key-store`)
/// releases each device its key, and the real client installs them; every refusal of a key or
/// payload that does not decrypt leaves the home as it was.
@Suite struct EncryptedCorpusTests {
    static let corpora: [PublishedCorpusTree.Corpus] = [
        .init(id: "tides", documents: PublishedCorpusTree.documents("tidewater ebbing", seed: 2)),
        .init(id: "atlas", access: "entitled", tier: "pro", documents: PublishedCorpusTree.documents("meridian atlas", count: 3, seed: 3)),
    ]

    /// A tree published with a key store outside it, naming `gate` as its gate.
    static func encryptedTree(gate: String, keys: TempDirectory) throws -> PublishedCorpusTree {
        try PublishedCorpusTree(catalogID: "sealed-catalog", publishArguments: ["--key-store", keys.url("store"), "--gate-url", gate], corpora: corpora)
    }

    static func catalog(_ tree: PublishedCorpusTree) throws -> Catalog {
        try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/catalogs/\(tree.publishCount).json")))
    }

    static func firstError(_ object: [String: Any]?) -> [String: Any]? {
        (object?["results"] as? [[String: Any]])?.first?["error"] as? [String: Any]
    }

    @Test func anEntitledCorpusInstallsFromAMirrorWithTheKeyFromTheGate() async throws {
        let keys = TempDirectory("key-store")
        let gatePort = freeLoopbackPort()
        let gateURL = "http://127.0.0.1:\(gatePort)"
        let tree = try Self.encryptedTree(gate: gateURL, keys: keys)
        let catalog = try Self.catalog(tree)
        #expect(catalog.gate == gateURL)
        let atlas = try #require(catalog.corpora.first { $0.id == "atlas" })
        let payload = try #require(atlas.payload)
        #expect(catalog.corpora.first { $0.id == "tides" }?.payload == nil, "a free corpus stays in the clear")
        #expect(payload.matches(fileAt: tree.publicDir + "/" + payload.path))
        // The key store: one key file, mode 600, outside the tree, in a folder of mode 700.
        let stored = try FileManager.default.contentsOfDirectory(atPath: keys.url("store"))
        #expect(stored == ["\(payload.digest.hex).key"])
        #expect(try FileManager.default.attributesOfItem(atPath: keys.url("store/\(stored[0])"))[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: keys.url("store"))[.posixPermissions] as? Int == 0o700)

        let gate = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}",
                                                             "--entitlement-pub", tree.entitlementPub, "--key-store", keys.url("store")], port: gatePort)
        defer { gate.stop() }
        // The mirror is made with no token: it copies the payload and never the plaintext bundle.
        let work = TempDirectory("sealed-mirror")
        let mirrored = try ProcessRunner.run(BuiltProducts.corpusd, ["mirror", gateURL, "--out", work.url("m"), "--trust", tree.rootPub])
        #expect(mirrored.status == 0, "\(mirrored.stderr)")
        #expect(payload.matches(fileAt: work.url("m/" + payload.path)))
        #expect(!FileManager.default.fileExists(atPath: work.url("m/" + atlas.bundle.path)), "the mirror holds no plaintext of an entitled corpus")
        let mirror = try MisbehavingServer(root: work.url("m"))
        defer { mirror.stop() }

        let client = PublishedTreeClient()
        try client.addRemote(mirror.baseURL, trust: tree.rootPub)
        let identityPath = client.home + "/identity.txt"
        #expect(try FileManager.default.attributesOfItem(atPath: identityPath)[.posixPermissions] as? Int == 0o600)

        // Without a token: exit 4, nothing installed, nothing asked of the mirror or the gate.
        let before = client.snapshot
        let none = try client.json(["install", "atlas"])
        #expect(none.result.status == 4)
        #expect(Self.firstError(none.object)?["code"] as? String == "entitlement")
        #expect(client.snapshot == before)
        #expect(mirror.requests(for: "/" + payload.path).isEmpty)

        // With a token: the key from the gate, the payload from the mirror, the corpus searchable.
        let token = try tree.token(tier: "pro")
        let installed = try client.json(["install", "atlas"], env: ["CORPUS_TOKEN": token])
        #expect(installed.result.status == 0, "\(installed.result.stderr)")
        #expect(try client.installed() == ["atlas@1"])
        #expect(try client.search("meridian")?.contains { $0.corpus.hasPrefix("atlas") } == true)
        #expect(!mirror.requests(for: "/" + payload.path).isEmpty, "the payload came from the mirror")
        #expect(mirror.requests.allSatisfy { $0.headers["authorization"] == nil }, "the token never went to the mirror")
        #expect(gate.stderrEventuallyContains("/v1/keys/\(payload.digest.hex)"), "the key came from the gate")
        #expect(!gate.stderr.contains(atlas.bundle.path), "the gate was never asked for the plaintext bundle")
        #expect(client.entries("staging").isEmpty && client.entries("downloads").isEmpty, "no plaintext or ciphertext left behind")

        // The gate's answer and the payload are a standard age file for the device's identity.
        let recipient = try #require(try String(contentsOfFile: identityPath, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("# public key: ") }.map { String($0.dropFirst("# public key: ".count)) })
        let header = try ProcessRunner.run("/usr/bin/curl", ["-sf", "-H", "Authorization: Bearer \(token)",
                                                             KeyRelease.url(gate: gateURL, payload: payload.digest, recipient: try AgeX25519Recipient(encoded: recipient))])
        #expect(header.status == 0)
        var file = header.stdoutData
        file.append(try Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/" + payload.path)))
        try file.write(to: URL(fileURLWithPath: work.url("atlas.age")))
        let age = try ProcessRunner.run("/usr/bin/age", ["-d", "-i", identityPath, "-o", work.url("atlas.zip"), work.url("atlas.age")])
        #expect(age.status == 0, "\(age.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.url("atlas.zip"))) == Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/" + atlas.bundle.path)),
                "age -d gives the bundle byte for byte")

        // The gate checks the token as for a download: none is 401, one for another corpus 403.
        let url = KeyRelease.url(gate: gateURL, payload: payload.digest, recipient: try AgeX25519Recipient(encoded: recipient))
        #expect(try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", url]).stdout == "401")
        let other = try tree.token(corpora: ["tides"])
        #expect(try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(other)", url]).stdout == "403")
    }

    /// Stopped once every member is extracted (the moment the most is on disk), the home holds
    /// the bundle's plaintext nowhere but in the staged install's own folder: no decrypted copy of
    /// the bundle (its zip structure, which extraction never writes) in any file of the home.
    @Test func anEncryptedInstallWritesNoPlaintextBesideTheStagedInstall() async throws {
        let keys = TempDirectory("key-store")
        let gatePort = freeLoopbackPort()
        let tree = try Self.encryptedTree(gate: "http://127.0.0.1:\(gatePort)", keys: keys)
        let atlas = try #require(try Self.catalog(tree).corpora.first { $0.id == "atlas" })
        let gate = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}",
                                                             "--entitlement-pub", tree.entitlementPub, "--key-store", keys.url("store")], port: gatePort)
        defer { gate.stop() }
        let client = PublishedTreeClient()
        try client.addRemote(gate.url, trust: tree.rootPub)

        let r = try client.run(["install", "atlas"], env: ["CORPUS_TOKEN": try tree.token(tier: "pro"), "CORPUS_TEST_KILL_AT": "extracted"])
        #expect(r.status != 0, "the install was stopped at its step")
        let staged = client.entries("staging").filter { $0.hasSuffix(".atlas.1") }
        #expect(staged.count == 1, "the staged install is there: \(client.entries("staging"))")

        let holding = try client.filesHoldingArchive(tree.publicDir + "/" + atlas.bundle.path, stagedSuffix: ".atlas.1")
        #expect(holding.isEmpty, "files holding the plaintext bundle: \(holding)")
    }

    /// The payload's first source cuts every answer short, so the download is resumed there and
    /// then from the mirror: the plaintext, checked while the payload downloads, takes in the
    /// bytes already on disk at each resume, and the corpus installs with nothing left behind.
    @Test func anEncryptedPayloadResumedAndFailedOverMidChunkInstalls() async throws {
        let keys = TempDirectory("key-store")
        let gatePort = freeLoopbackPort()
        let atlas = PublishedCorpusTree.Corpus(id: "atlas", access: "entitled", tier: "pro",
                                               documents: PublishedCorpusTree.documents("meridian atlas", count: 40, paragraphs: 12, seed: 3))
        let tree = try PublishedCorpusTree(catalogID: "sealed-catalog", publishArguments: ["--key-store", keys.url("store"), "--gate-url", "http://127.0.0.1:\(gatePort)"],
                                           corpora: [atlas])
        let payload = try #require(try Self.catalog(tree).corpora.first { $0.id == "atlas" }?.payload)
        try #require(payload.size > 2 * 65_552, "the payload spans several chunks: \(payload.size) bytes")
        let gate = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}",
                                                             "--entitlement-pub", tree.entitlementPub, "--key-store", keys.url("store")], port: gatePort)
        defer { gate.stop() }
        // Each answer for the payload stops a quarter of the way in (not at a chunk boundary).
        let cut = Int(payload.size / 4) + 13
        let origin = try MisbehavingServer(root: tree.publicDir) { $0.path == "/" + payload.path ? .truncateAfter(bytes: cut) : .normal }
        defer { origin.stop() }
        let mirror = try MisbehavingServer(root: tree.publicDir)
        defer { mirror.stop() }
        let client = PublishedTreeClient()
        let added = try client.run(["remote", "add", "main", origin.baseURL, "--mirror", mirror.baseURL, "--trust", tree.rootPub])
        #expect(added.status == 0, "\(added.stderr)")

        let r = try client.run(["install", "atlas"], env: ["CORPUS_TOKEN": try tree.token(tier: "pro")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try client.installed() == ["atlas@1"])
        #expect(try client.search("meridian")?.contains { $0.corpus.hasPrefix("atlas") } == true)
        let fromOrigin = origin.requests(for: "/" + payload.path).map { $0.headers["range"] }
        #expect(fromOrigin.first == .some(nil) && fromOrigin.dropFirst().contains("bytes=\(cut)-"), "resumed at the origin: \(fromOrigin)")
        let fromMirror = try #require(mirror.requests(for: "/" + payload.path).first?.headers["range"], "the mirror resumed the partial")
        #expect(fromMirror.hasPrefix("bytes=") && fromMirror != "bytes=0-")
        #expect(client.entries("staging").isEmpty && client.entries("downloads").isEmpty, "nothing left behind")
    }

    /// One refusal: what the fake gate answers and what the source serves, and the code expected.
    struct Refusal: Sendable, CustomStringConvertible {
        var description: String
        var code: String
    }

    /// A header for another device, a wrong file key, a tampered payload: exit 3, home unchanged.
    /// The gate is a recording server answering the header the case crafts with the publisher's key store.
    @Test(arguments: ["another-device", "wrong-key", "tampered-chunk", "truncated-payload", "header-of-two-stanzas"])
    func aKeyOrPayloadThatDoesNotDecryptInstallsNothing(_ kind: String) async throws {
        let keys = TempDirectory("key-store")
        let fakeGateRoot = TempDirectory("fake-gate")
        let fakeGate = try MisbehavingServer(root: fakeGateRoot.path)
        defer { fakeGate.stop() }
        let tree = try Self.encryptedTree(gate: fakeGate.baseURL, keys: keys)
        let atlas = try #require(try Self.catalog(tree).corpora.first { $0.id == "atlas" })
        let payload = try #require(atlas.payload)
        let source = try MisbehavingServer(root: tree.publicDir)
        defer { source.stop() }
        let client = PublishedTreeClient()
        try client.addRemote(source.baseURL, trust: tree.rootPub)

        let entry = try #require(try KeyStore(directory: keys.url("store"), create: false).entry(payload: payload.digest))
        let device = try AgeX25519Identity(encoded: try String(contentsOfFile: client.home + "/identity.txt", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-") }.map(String.init) ?? "")
        let answer: [UInt8]
        switch kind {
        case "another-device": answer = try KeyRelease.answer(fileKey: entry.key(), recipient: AgeX25519Identity.generate().recipient)
        case "wrong-key": answer = try KeyRelease.answer(fileKey: AgeFileKey.generate(), recipient: device.recipient)
        case "header-of-two-stanzas": answer = try AgeHeader.make(fileKey: entry.key(), recipients: [device.recipient, device.recipient]).encoded
        default:
            answer = try KeyRelease.answer(fileKey: entry.key(), recipient: device.recipient)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: tree.publicDir + "/" + payload.path))
            if kind == "truncated-payload" { bytes = bytes.prefix(bytes.count - 100) } else { bytes[bytes.count / 2] ^= 0x01 }
            let tampered = bytes
            source.setBehavior { $0.path == "/" + payload.path ? .content(tampered) : .normal }
        }
        fakeGate.setBehavior { _ in .content(Data(answer)) }

        let before = client.snapshot
        let r = try client.json(["install", "atlas"], env: ["CORPUS_TOKEN": try tree.token(tier: "pro")])
        #expect(r.result.status == 3, "\(kind): \(r.result.stderr)")
        // A tampered or truncated payload is caught by the catalog's hash and size before any chunk
        // is opened; a key that does not fit, by the header or the first chunk's tag.
        #expect(Self.firstError(r.object)?["code"] as? String == (["tampered-chunk", "truncated-payload"].contains(kind) ? "integrity" : "decryption"),
                "\(kind): \(String(describing: Self.firstError(r.object)))")
        #expect(client.snapshot == before, "\(kind): nothing installed, nothing left behind")
        #expect(source.requests.allSatisfy { $0.headers["authorization"] == nil }, "the token never went to the payload's source")
        #expect(fakeGate.requests.allSatisfy { $0.headers["authorization"] != nil }, "the gate got the token")
    }

    @Test func aKeyStoreInsideThePublishedTreeIsRefusedBeforeAnythingIsWritten() throws {
        let tree = try PublishedCorpusTree(catalogID: "sealed-catalog", corpora: Self.corpora)
        let before = DirectorySnapshot(tree.publicDir)
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["publish", tree.work.url("catalog"), "--out", tree.publicDir, "--key", tree.rootKey,
                                                              "--key-store", tree.publicDir + "/keys-here", "--gate-url", "http://127.0.0.1:9", "--json"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stdout.contains("key-store-inside-tree"))
        #expect(DirectorySnapshot(tree.publicDir) == before)
    }
}
