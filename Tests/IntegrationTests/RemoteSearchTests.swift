import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd serve --search HOME` against the real `corpus search`: the same ranking over the same
/// corpora, entitled corpora only for a covering token, bounded requests, hostile queries
/// answered, the client's fallback and `--remote`, and two search processes behind nginx.
@Suite(.serialized) struct RemoteSearchTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let corpora: [PublishedCorpusTree.Corpus] = [
        .init(id: "tides", documents: PublishedCorpusTree.documents("tidewater ebbing", count: 3, seed: 2)),
        .init(id: "bread", documents: PublishedCorpusTree.documents("sourdough crumb", count: 3, seed: 5)),
        .init(id: "atlas", access: "entitled", tier: "pro", documents: PublishedCorpusTree.documents("meridian atlas", seed: 3)),
    ]

    /// A published tree, a home with every corpus installed (the token covers atlas), and
    /// `corpusd serve --search` of that home.
    final class Fixture: @unchecked Sendable {
        let tree: PublishedCorpusTree
        let installed = PublishedTreeClient()
        let token: String

        init() throws {
            tree = try PublishedCorpusTree(catalogID: "search-catalog", corpora: RemoteSearchTests.corpora)
            token = try tree.token(tier: "pro")
            let origin = try tree.serve()
            defer { origin.stop() }
            try installed.addRemote(origin.url, trust: tree.rootPub)
            let r = try installed.run(["install", "tides", "bread", "atlas"], env: ["CORPUS_TOKEN": token])
            guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "install: \(r.stderr)") }
        }

        func searchServer() throws -> ServerProcess {
            try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}", "--quiet",
                                                      "--entitlement-pub", tree.entitlementPub, "--search", installed.home])
        }
    }

    static func get(_ port: UInt16, _ target: String, token: String? = nil) throws -> RawHTTPResponse {
        let c = try RawConnection(port: port)
        c.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n")
        return try c.readResponse()
    }

    static func hitIDs(_ body: Data) -> [String] {
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        return ((object?["hits"] as? [[String: Any]]) ?? []).map { "\($0["corpus"] as? String ?? "?")/\($0["passage"] as? String ?? "?")" }
    }

    static func encode(_ q: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return q.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// 60 queries: the corpora's topic words and their filler words, alone and in pairs.
    static let queries: [String] = {
        let words = ["tidewater", "ebbing", "sourdough", "crumb", "meridian", "atlas", "anchor", "bearing", "chart", "compass",
                     "current", "depth", "estuary", "fathom", "gale", "headland", "inlet", "jetty", "keel", "lee"]
        var out = words
        for (i, w) in words.enumerated() { out.append("\(w) \(words[(i + 7) % words.count])") }
        for (i, w) in words.enumerated() { out.append("paragraph about \(w) note \(i % 3 + 1)") }
        return out
    }()

    @Test func remoteSearchRanksExactlyLikeLocalSearchOnTheSameCorpora() throws {
        let f = try Fixture()
        let server = try f.searchServer()
        defer { server.stop() }
        #expect(Self.queries.count >= 50)
        for q in Self.queries {
            let local = try f.installed.json(["search", q, "-k", "10"], env: ["CORPUS_TOKEN": f.token])
            #expect(local.result.status == 0, "\(local.result.stderr)")
            let localIDs = ((local.object?["hits"] as? [[String: Any]]) ?? []).map { "\($0["corpus"] as? String ?? "?")/\($0["passage"] as? String ?? "?")" }
            let remote = try Self.get(server.port, "/v1/search?q=\(Self.encode(q))&k=10", token: f.token)
            #expect(remote.status == 200, "\(remote.text)")
            #expect(remote.header("Content-Type") == "application/json")
            #expect(!localIDs.isEmpty, "query \(q) found nothing locally")
            #expect(Self.hitIDs(remote.body) == localIDs, "query \(q)")
        }
    }

    @Test func entitledCorporaAreSearchedOnlyWithACoveringToken() throws {
        let f = try Fixture()
        let server = try f.searchServer()
        defer { server.stop() }
        // Unasked, a locked corpus is left out; asked for, it is refused as its bundle would be.
        let open = try Self.get(server.port, "/v1/search?q=meridian+atlas")
        #expect(open.status == 200)
        #expect(!Self.hitIDs(open.body).isEmpty && Self.hitIDs(open.body).allSatisfy { !$0.hasPrefix("atlas/") }, "\(open.text)")
        let none = try Self.get(server.port, "/v1/search?q=meridian&corpus=atlas")
        #expect(none.status == 401 && none.text.hasPrefix("401 "), "\(none.text)")
        let stranger = try f.tree.token(tier: "pro", key: f.tree.strangerKey)
        #expect(try Self.get(server.port, "/v1/search?q=meridian&corpus=atlas", token: stranger).status == 401)
        let other = try f.tree.token(corpora: ["tides"])
        let narrow = try Self.get(server.port, "/v1/search?q=meridian&corpus=atlas", token: other)
        #expect(narrow.status == 403, "\(narrow.text)")
        let granted = try Self.get(server.port, "/v1/search?q=meridian+atlas", token: f.token)
        #expect(granted.status == 200)
        #expect(Self.hitIDs(granted.body).first?.hasPrefix("atlas/") == true, "\(granted.text)")
        #expect(!server.stderr.contains(f.token) && !server.stdout.contains(f.token), "the token is never logged")
    }

    @Test func requestsOutOfBoundsGetOneLine400AndHostileQueriesAreAnswered() throws {
        let f = try Fixture()
        let server = try f.searchServer()
        defer { server.stop() }
        let cases: [(String, String)] = [
            ("/v1/search", "400 search needs one q parameter of 1 to 1024 bytes"),
            ("/v1/search?q=", "400 search needs one q parameter"),
            ("/v1/search?q=a&q=b", "400 search needs one q parameter"),
            ("/v1/search?q=" + String(repeating: "w", count: 1025), "400 search needs one q parameter"),
            ("/v1/search?q=tide&k=0", "400 k must be one number from 1 to 100"),
            ("/v1/search?q=tide&k=101", "400 k must be one number from 1 to 100"),
            ("/v1/search?q=tide&k=ten", "400 k must be one number from 1 to 100"),
            ("/v1/search?q=tide&corpus=..%2Fetc", "400 corpus must name at most 32 corpus ids"),
            ("/v1/search?q=tide&corpus=nosuch", "404 no corpus nosuch is searchable here"),
        ]
        for (target, line) in cases {
            let r = try Self.get(server.port, target)
            #expect(r.text.hasPrefix(line) && r.text.split(separator: "\n").count == 1, "\(target): \(r.text)")
        }
        for q in ["\"unbalanced", "NEAR(tide crumb, 2)", "tide* OR -crumb AND NOT ^x", "{col}: (a OR", "🌊🍞 👍🏽 🇫🇷", "column:tidewater"] {
            let r = try Self.get(server.port, "/v1/search?q=\(Self.encode(q))")
            #expect(r.status == 200, "\(q): \(r.text)")
        }
        // A NUL is refused by the request-target rules, for a query as for any path.
        let nul = try Self.get(server.port, "/v1/search?q=tide%00")
        #expect(nul.status == 400 && nul.text.split(separator: "\n").count == 1, "\(nul.text)")
        // A server without --search does not answer there.
        let plain = try f.tree.serve()
        defer { plain.stop() }
        #expect(try Self.get(plain.port, "/v1/search?q=tide").status == 404)
        // The client's fallback to such a remote says what it said before remote search existed;
        // asked for by name, the same remote is not found (6).
        let fresh = PublishedTreeClient()
        try fresh.addRemote(plain.url, trust: f.tree.rootPub)
        let fallback = try fresh.run(["search", "tide"])
        #expect(fallback.status == 0 && (fallback.stdout + fallback.stderr).contains("nothing installed to search"), "\(fallback.stderr)")
        #expect(try fresh.run(["search", "tide", "--remote", "main"]).status == 6)
    }

    @Test func theClientFallsBackToTheRemoteWhenNothingIsInstalledAndSaysSo() throws {
        let f = try Fixture()
        let server = try f.searchServer()
        defer { server.stop() }
        let fresh = PublishedTreeClient()
        try fresh.addRemote(server.url, trust: f.tree.rootPub)
        let before = fresh.snapshot
        // The entitled corpus takes part on both sides only with the token.
        let remote = try fresh.json(["search", "tidewater ebbing"], env: ["CORPUS_TOKEN": f.token])
        #expect(remote.result.status == 0, "\(remote.result.stderr)")
        let hits = (remote.object?["hits"] as? [[String: Any]]) ?? []
        #expect(!hits.isEmpty && hits.allSatisfy { $0["origin"] as? String == "remote:main" && $0["catalog"] as? String == "main" }, "\(remote.result.stdout)")
        let local = try f.installed.json(["search", "tidewater ebbing"], env: ["CORPUS_TOKEN": f.token])
        #expect(((local.object?["hits"] as? [[String: Any]]) ?? []).allSatisfy { $0["origin"] as? String == "local" })
        #expect(hits.map { $0["passage"] as? String } == ((local.object?["hits"] as? [[String: Any]]) ?? []).map { $0["passage"] as? String })
        let human = try fresh.run(["search", "tidewater"])
        #expect(human.status == 0 && human.stdout.contains("from remote:main"), "\(human.stdout)")
        #expect(fresh.snapshot == before, "a remote search writes nothing")
        // `--remote NAME` from a home with corpora installed; an unknown one is not found (6).
        let unknown = try fresh.json(["search", "tidewater", "--remote", "nosuch"])
        #expect(unknown.result.status == 6, "\(unknown.result.stdout)")
        // Entitled corpus through the client: no token, 401 → exit 4.
        let locked = try fresh.json(["search", "meridian", "--corpus", "atlas"])
        #expect(locked.result.status == 4, "\(locked.result.stdout) \(locked.result.stderr)")
        let unlocked = try fresh.json(["search", "meridian", "--corpus", "atlas"], env: ["CORPUS_TOKEN": f.token])
        #expect(unlocked.result.status == 0 && ((unlocked.object?["hits"] as? [[String: Any]]) ?? []).first?["corpus"] as? String == "atlas")
    }

    @Test(.enabled(if: MirrorNginx.binary != nil && getuid() == 0, "needs nginx, run as root"))
    func twoSearchProcessesBehindNginxKeepAnsweringWhenOneIsKilled() throws {
        let f = try Fixture()
        let a = try f.searchServer(), b = try f.searchServer()
        defer { a.stop(); b.stop() }
        let front = try SearchNginx(upstreams: [a.port, b.port], packageRoot: Self.packageRoot)
        defer { front.stop() }
        let expected = Self.hitIDs(try Self.get(a.port, "/v1/search?q=tidewater+ebbing").body)
        #expect(!expected.isEmpty)
        for _ in 0..<6 { #expect(Self.hitIDs(try Self.get(front.port, "/v1/search?q=tidewater+ebbing").body) == expected) }
        #expect(front.accessLog.contains("127.0.0.1:\(a.port)") && front.accessLog.contains("127.0.0.1:\(b.port)"), "both processes answered")
        kill(a.process.processIdentifier, SIGKILL)
        a.process.waitUntilExit()
        for _ in 0..<10 {
            let r = try Self.get(front.port, "/v1/search?q=tidewater+ebbing")
            #expect(r.status == 200 && Self.hitIDs(r.body) == expected, "\(r.status) \(r.text)")
        }
    }
}
