import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpus documents` and `corpus read`, on installed corpora and through `corpusd serve --search`
/// with `--remote`: the same JSON byte for byte for free corpora, entitled corpora gated as their
/// bundles are, and what no corpus holds refused in one line with its exit code or status.
@Suite(.serialized) struct BrowseRemoteTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let samples = ["field-guide-tides", "orbital-mechanics-primer", "sourdough-handbook"]

    /// The sample corpora of `catalog/` (their files as they are) and an entitled one, published,
    /// installed in one home (the token covers the entitled one), and a second home whose only
    /// remote is `corpusd serve --search` of the first.
    final class Fixture: @unchecked Sendable {
        let tree: PublishedCorpusTree
        let installed = PublishedTreeClient()
        let remote = PublishedTreeClient()
        let token: String
        let server: ServerProcess

        init() throws {
            var corpora = try BrowseRemoteTests.samples.map { id -> PublishedCorpusTree.Corpus in
                let folder = "\(BrowseRemoteTests.packageRoot)/catalog/\(id)"
                var documents: [String: String] = [:]
                for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                    documents[name] = try String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)
                }
                return .init(id: id, documents: documents)
            }
            corpora.append(.init(id: "atlas", access: "entitled", tier: "pro", documents: PublishedCorpusTree.documents("meridian atlas", seed: 3)))
            tree = try PublishedCorpusTree(catalogID: "browse-catalog", corpora: corpora)
            token = try tree.token(tier: "pro")
            let origin = try tree.serve()
            defer { origin.stop() }
            try installed.addRemote(origin.url, trust: tree.rootPub)
            let r = try installed.run(["install"] + BrowseRemoteTests.samples + ["atlas"], env: ["CORPUS_TOKEN": token])
            guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "install: \(r.stderr)") }
            server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.publicDir, "--listen", "127.0.0.1:{PORT}", "--quiet",
                                                               "--entitlement-pub", tree.entitlementPub, "--search", installed.home])
            try remote.addRemote(server.url, trust: tree.rootPub)
        }

        deinit { server.stop() }
    }

    static func get(_ port: UInt16, _ target: String, token: String? = nil) throws -> RawHTTPResponse {
        let c = try RawConnection(port: port)
        c.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n")
        return try c.readResponse()
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    @Test func remoteDocumentsAndReadAnswerExactlyWhatLocalOnesDo() throws {
        let f = try Fixture()
        var compared = 0
        for id in Self.samples {
            let local = try f.installed.run(["documents", id, "--json"])
            let remote = try f.remote.run(["documents", id, "--json", "--remote", "main"])
            #expect(local.status == 0 && remote.status == 0, "\(local.stderr) \(remote.stderr)")
            #expect(local.stdout == remote.stdout, "\(id)")
            let listing = try #require(try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])
            let documents = (listing["documents"] as? [[String: Any]]) ?? []
            #expect(documents.count >= 3)
            for d in documents {
                let path = try #require(d["path"] as? String)
                let sections = (d["sections"] as? [[String: Any]]) ?? []
                let at = try #require(sections.last?["passage"] as? String)
                for args in [["read", id, path], ["read", id, path, "--all"], ["read", id, path, "--at", at]] {
                    let l = try f.installed.run(args + ["--json"])
                    let r = try f.remote.run(args + ["--json", "--remote", "main"])
                    #expect(l.status == 0 && r.status == 0 && !l.stdout.isEmpty, "\(args): \(l.stderr) \(r.stderr)")
                    #expect(l.stdout == r.stdout, "\(args)")
                    compared += 1
                }
            }
        }
        #expect(compared >= 30)
        // The human form prints the text, never a control character of it.
        let human = try f.remote.run(["read", "sourdough-handbook", "starter.md", "--remote", "main"])
        #expect(human.status == 0 && human.stdout.hasPrefix("# ") && !human.stdout.contains("\u{1b}"), "\(human.stdout)")
    }

    @Test func anEntitledCorpusIsBrowsedOnlyWithACoveringToken() throws {
        let f = try Fixture()
        let port = f.server.port
        for target in ["/v1/documents?corpus=atlas", "/v1/read?corpus=atlas&document=doc-0.md"] {
            let none = try Self.get(port, target)
            #expect(none.status == 401 && none.text.hasPrefix("401 ") && none.text.split(separator: "\n").count == 1, "\(none.text)")
            let narrow = try Self.get(port, target, token: try f.tree.token(corpora: ["field-guide-tides"]))
            #expect(narrow.status == 403, "\(narrow.text)")
            let stranger = try Self.get(port, target, token: try f.tree.token(tier: "pro", key: f.tree.strangerKey))
            #expect(stranger.status == 401)
        }
        let granted = try Self.get(port, "/v1/documents?corpus=atlas", token: f.token)
        #expect(granted.status == 200 && granted.header("Cache-Control") == "no-store", "\(granted.text)")
        // Unasked, the search listing leaves it out; the client without a token is refused (4).
        let open = try Self.get(port, "/v1/search?q=meridian+atlas")
        #expect(open.status == 200 && !open.text.contains("\"corpus\":\"atlas\""))
        #expect(try f.remote.run(["documents", "atlas", "--remote", "main"]).status == 4)
        let unlocked = try f.remote.run(["documents", "atlas", "--remote", "main", "--json"], env: ["CORPUS_TOKEN": f.token])
        let local = try f.installed.run(["documents", "atlas", "--json"])
        #expect(unlocked.status == 0 && unlocked.stdout == local.stdout, "\(unlocked.stderr)")
        #expect(!f.server.stderr.contains(f.token) && !f.server.stdout.contains(f.token))
    }

    @Test func whatNoCorpusHoldsIsRefusedInOneLine() throws {
        let f = try Fixture()
        let port = f.server.port
        let long = String(repeating: "a", count: 10_240)
        let http: [(String, Int, String)] = [
            ("/v1/read?corpus=sourdough-handbook&document=..%2F..%2Fetc%2Fpasswd", 400, "400 a document path has no empty, . or .. segment"),
            ("/v1/read?corpus=sourdough-handbook&document=..", 400, "400 a document path has no empty, . or .. segment"),
            ("/v1/read?corpus=sourdough-handbook&document=%2Fetc%2Fpasswd", 400, "400 a document path is relative to its corpus, not absolute"),
            ("/v1/read?corpus=sourdough-handbook&document=starter.md%00.txt", 400, "400 "),
            ("/v1/read?corpus=sourdough-handbook&document=" + long, 400, "400 request target longer than 4096 bytes"),
            ("/v1/read?corpus=sourdough-handbook&document=" + String(repeating: "a", count: 2000), 400, "400 a document path is at most 1024 bytes"),
            ("/v1/read?corpus=sourdough-handbook", 400, "400 one document parameter is needed"),
            ("/v1/read?corpus=sourdough-handbook&document=nosuch.md", 404, "404 "),
            ("/v1/read?corpus=sourdough-handbook&document=starter.md&at=nosuch", 404, "404 "),
            ("/v1/documents?corpus=nosuch", 404, "404 no corpus nosuch is browsable here"),
            ("/v1/documents", 400, "400 one corpus parameter naming a corpus id is needed"),
            ("/v1/documents?corpus=..%2Fetc", 400, "400 one corpus parameter naming a corpus id is needed"),
        ]
        for (target, status, line) in http {
            let r = try Self.get(port, target)
            #expect(r.status == status && r.text.hasPrefix(line) && r.text.split(separator: "\n").count == 1, "\(target.prefix(80)): \(r.text)")
        }
        // A server without --search does not answer there.
        let plain = try f.tree.serve()
        defer { plain.stop() }
        #expect(try Self.get(plain.port, "/v1/documents?corpus=sourdough-handbook").status == 404)

        let before = f.installed.snapshot
        let cli: [([String], Int32, String)] = [
            (["read", "sourdough-handbook", "../../etc/passwd"], 2, "error: a document path has no empty, . or .. segment"),
            (["read", "sourdough-handbook", "/etc/passwd"], 2, "error: a document path is relative to its corpus, not absolute"),
            (["read", "sourdough-handbook", "starter.md\u{1}"], 2, "error: a document path holds no control characters"),
            (["read", "sourdough-handbook", long], 2, "error: a document path is at most 1024 bytes"),
            (["read", "sourdough-handbook", "nosuch.md"], 6, "error: main/sourdough-handbook has no document \"nosuch.md\""),
            (["read", "nosuch", "starter.md"], 6, "error: no installed corpus \"nosuch\""),
            (["documents", "nosuch"], 6, "error: no installed corpus \"nosuch\""),
        ]
        for (args, status, line) in cli {
            for (client, extra) in [(f.installed, [String]()), (f.remote, ["--remote", "main"])] {
                let r = try client.run(args + extra)
                let lines = r.stderr.split(separator: "\n")
                #expect(r.status == status && lines.count == 1, "\(args.map { $0.prefix(30) }) \(extra): \(r.status) \(r.stderr)")
                if extra.isEmpty || status == 2 { #expect(r.stderr.hasPrefix(line), "\(r.stderr)") }
            }
        }
        #expect(f.installed.snapshot == before, "a refused read changes nothing")
    }
}
