import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd serve` and `corpusd token issue` as real processes, talked to with the real curl.
@Suite struct CorpusdServeCommandTests {
    static var corpusd: String { BuiltProducts.corpusd }

    /// Runs curl and returns (HTTP status, body bytes).
    func curl(_ url: String, _ extra: [String] = []) throws -> (Int, Data) {
        let out = TempDirectory("curl")
        let r = try ProcessRunner.run("curl", ["-s", "-o", out.url("body"), "-w", "%{http_code}"] + extra + [url], timeout: 60)
        return (Int(r.stdout) ?? -1, FileManager.default.contents(atPath: out.url("body")) ?? Data())
    }

    @Test func serveAnswersCurlLogsRequestsAndStopsCleanlyOnSIGTERM() throws {
        let tree = try ServerTestTree()
        let pub = try tree.entitlementPubFile()
        let keyFile = try tree.entitlementKeyFile()
        let server = try ServerProcess(Self.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}", "--entitlement-pub", pub])
        #expect(server.waitForStdout(containing: "serving \(tree.root) on http://127.0.0.1:\(server.port)"), "\(server.stdout)")

        let (freeStatus, freeBody) = try curl(server.url + "/" + tree.bundlePaths["free-guide"]!)
        #expect(freeStatus == 200 && freeBody == tree.bundleBytes["free-guide"])
        let gated = server.url + "/" + tree.bundlePaths["paid-atlas"]!
        #expect(try curl(gated).0 == 401)

        // A token from the CLI, used the way a client does.
        let issued = try ProcessRunner.run(Self.corpusd, ["token", "issue", "--key", keyFile, "--sub", "alice", "--corpora", "paid-atlas",
                                                          "--catalog", tree.root, "--expires", "1h", "--import-limit", "3"])
        #expect(issued.status == 0, "\(issued.stderr)")
        let token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (status, body) = try curl(gated, ["-H", "Authorization: Bearer \(token)"])
        #expect(status == 200 && body == tree.bundleBytes["paid-atlas"])
        let (rangeStatus, rangeBody) = try curl(gated, ["-H", "Authorization: Bearer \(token)", "-r", "0-99"])
        #expect(rangeStatus == 206 && rangeBody == tree.bundleBytes["paid-atlas"]!.prefix(100))
        #expect(try curl(server.url + "/" + tree.bundlePaths["paid-notes"]!, ["-H", "Authorization: Bearer \(token)"]).0 == 403)

        #expect(server.stop() == 0)
        let log = server.stderr
        #expect(log.contains("\"GET /\(tree.bundlePaths["paid-atlas"]!)\" 200 20000"), "\(log)")
        #expect(log.contains("\"GET /\(tree.bundlePaths["paid-atlas"]!)\" 401"), "\(log)")
        #expect(log.contains("stopped"))
        #expect(!log.contains(token) && !log.contains(String(token.split(separator: ".")[2])))
    }

    @Test func sigtermLetsACurlDownloadInFlightComplete() throws {
        let size = 16 << 20
        let tree = try ServerTestTree(specs: [.init("big", .free, size: size)])
        let server = try ServerProcess(Self.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}"])
        // A slow client, under way; then ask the server to stop.
        let download = try SlowCurlDownload(server.url + "/" + tree.bundlePaths["big"]!)
        #expect(server.stop(timeout: 60) == 0)
        let (status, body) = download.finish()
        #expect(status == "200")
        #expect(body == tree.bundleBytes["big"])
        #expect(server.stderr.contains("SIGTERM: finishing downloads in flight"))
        #expect((try? RawConnection(port: server.port, timeout: 1)) == nil, "still listening after exit")
    }

    @Test func tokenIssueWritesAVerifiableTokenForTheNamedCatalog() throws {
        let tree = try ServerTestTree()
        let keyFile = try tree.entitlementKeyFile()
        let verifier = EntitlementVerifier(key: tree.entitlementKey.publicKey, audience: "demo")

        let r = try ProcessRunner.run(Self.corpusd, ["token", "issue", "--key", keyFile, "--sub", "bob", "--tier", "gold,silver", "--aud", "demo", "--expires", "2w"])
        #expect(r.status == 0, "\(r.stderr)")
        let claims = try verifier.verify(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(claims.subject == "bob" && claims.tiers == ["gold", "silver"] && claims.corpora.isEmpty && claims.importLimit == nil)
        #expect(abs(claims.expiresAt.timeIntervalSinceNow - 14 * 86400) < 120)

        let json = try ProcessRunner.run(Self.corpusd, ["token", "issue", "--key", keyFile, "--sub", "carol", "--corpora", "paid-atlas", "--aud", "demo", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(try verifier.verify(object?["token"] as? String ?? "").subject == "carol")

        // Without --aud or --catalog there is no token: one without an audience would be refused by
        // every server (docs/format.md), so issuing it is refused before the key is even read.
        let open = try ProcessRunner.run(Self.corpusd, ["token", "issue", "--key", keyFile, "--sub", "dan", "--tier", "gold"])
        #expect(open.status == 2, "\(open.stderr)")
        #expect(open.stdout.isEmpty)
        #expect(open.stderr.contains("token issue needs --aud CATALOG_ID or --catalog PUBLIC_DIR"), "\(open.stderr)")
        let other = try ProcessRunner.run(Self.corpusd, ["token", "issue", "--key", keyFile, "--sub", "eve", "--tier", "gold", "--aud", "elsewhere"])
        #expect(throws: EntitlementTokenError.wrongAudience(expected: "demo", actual: ["elsewhere"])) {
            try verifier.verify(other.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test func tokenIssueRefusesIncompleteRequests() throws {
        let tree = try ServerTestTree()
        let keyFile = try tree.entitlementKeyFile()
        let cases: [([String], Int32, String)] = [
            (["--sub", "a", "--aud", "demo"], 2, "--corpora or --tier"),
            (["--sub", "a", "--corpora", "x", "--aud", "demo", "--expires", "soon"], 2, "--expires"),
            (["--sub", "a", "--corpora", "../x", "--aud", "demo"], 2, "not a valid id"),
            (["--sub", "a", "--corpora", "x", "--aud", "Bad/Aud"], 2, "--aud"),
            (["--sub", "a", "--corpora", "x", "--aud", "demo", "--import-limit", "-1"], 2, "--import-limit"),
            (["--sub", "a", "--corpora", "x", "--catalog", "/nonexistent"], 6, "does not exist"),
            (["--sub", "a", "--corpora", "x"], 2, "--aud CATALOG_ID or --catalog PUBLIC_DIR"),
            (["--sub", "a", "--corpora", "x", "--aud", "demo", "--catalog", tree.root], 2, "give one of them"),
        ]
        for (args, code, message) in cases {
            let r = try ProcessRunner.run(Self.corpusd, ["token", "issue", "--key", keyFile] + args)
            #expect(r.status == code, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }

    @Test func serveRefusesBadArguments() throws {
        let tree = try ServerTestTree()
        let badListen = try ProcessRunner.run(Self.corpusd, ["serve", tree.root, "--listen", "nowhere"], timeout: 30)
        #expect(badListen.status == 2)
        let missing = try ProcessRunner.run(Self.corpusd, ["serve", tree.root + "/nope"], timeout: 30)
        #expect(missing.status == 6 && missing.stderr.contains("is not a folder"))
        let badKey = try ProcessRunner.run(Self.corpusd, ["serve", tree.root, "--entitlement-pub", tree.dir.url("index.html")], timeout: 30)
        #expect(badKey.status == 3)
    }
}
