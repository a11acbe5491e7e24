import Testing
import Foundation
import CorpusTestSupport

/// A token holding CR/LF went out as extra request headers (to the origin during `install`, to a
/// remote search server), and one holding ESC, BEL or DEL was sent and the server's 400 reported
/// as "unavailable". Every token source is now checked before use: anything but base64url parts
/// and dots is refused locally with exit 2, the token never echoed, nothing sent.
@Suite struct TokenHeaderInjectionTests {
    /// A published tree with one entitled corpus, served by a server that records every request.
    final class Setup: @unchecked Sendable {
        let tree: PublishedCorpusTree
        let server: MisbehavingServer
        let client = PublishedTreeClient()

        init() throws {
            tree = try PublishedCorpusTree(corpora: [.init(id: "paid", access: "entitled", documents: PublishedCorpusTree.documents("tide harbour"))])
            server = try MisbehavingServer(root: tree.publicDir)
            try client.addRemote(server.baseURL, trust: tree.rootPub)
        }
    }

    static let injected = "abc.def.ghi\r\nX-Injected: yes"

    /// Runs `args` with `token` given by `source`, and checks the refusal: exit 2, code
    /// `token-syntax`, the source named, the token not echoed, no request sent, home unchanged.
    func expectRefusedBeforeSending(_ s: Setup, _ args: [String], token: String, source: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        var env: [String: String] = [:]
        var argv = args
        switch source {
        case "--token": argv += ["--token", token]
        case "CORPUS_TOKEN": env["CORPUS_TOKEN"] = token
        default: try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: s.client.home + "/token"))
        }
        let before = s.client.snapshot
        let sent = s.server.requestCount
        let (r, object) = try s.client.json(argv, env: env)
        // The stored token was written by `corpus login`, which stores only a token's characters:
        // anything else there is a damaged file of the home (exit 7, with its repair).
        let stored = source == "stored"
        #expect(r.status == (stored ? 7 : 2), "exit \(r.status): \(r.stdout) \(r.stderr)", sourceLocation: sourceLocation)
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == (stored ? "local-file" : "token-syntax"), "\(r.stdout)", sourceLocation: sourceLocation)
        let message = error?["message"] as? String ?? ""
        #expect(message.contains(stored ? "/token, a file of this home folder, is damaged: it is not an entitlement token (it holds a control character at byte 11)" : source),
                "\(message)", sourceLocation: sourceLocation)
        #expect(!r.stdout.contains("X-Injected") && !r.stderr.contains("X-Injected") && !r.stdout.contains("abc.def") && !r.stderr.contains("abc.def"),
                "the token is never echoed", sourceLocation: sourceLocation)
        #expect(s.server.requestCount == sent, "nothing was sent: \(s.server.requests.map(\.path))", sourceLocation: sourceLocation)
        #expect(!s.server.requests.contains { $0.headers["x-injected"] != nil }, sourceLocation: sourceLocation)
        #expect(s.client.snapshot == before, sourceLocation: sourceLocation)
    }

    @Test(arguments: ["--token", "CORPUS_TOKEN", "stored"])
    func aTokenWithCRLFIsRefusedForInstallBeforeAnyRequest(source: String) throws {
        let s = try Setup()
        try expectRefusedBeforeSending(s, ["install", "paid"], token: Self.injected, source: source)
    }

    @Test(arguments: ["--token", "CORPUS_TOKEN"])
    func aTokenWithCRLFIsRefusedForRemoteSearch(source: String) throws {
        let s = try Setup()
        try expectRefusedBeforeSending(s, ["search", "tide", "--remote", "main"], token: Self.injected, source: source)
    }

    @Test(arguments: ["abc.def.ghi\u{1B}[31m", "abc.def.ghi\u{07}", "abc.def.ghi\u{7F}", "abc.def ghi", "abc.d\u{00E9}f.ghi"])
    func controlAndForeignCharactersAreRefusedLocally(token: String) throws {
        let s = try Setup()
        try expectRefusedBeforeSending(s, ["sync"], token: token, source: "CORPUS_TOKEN")
    }

    @Test func corpusdMirrorRefusesATokenWithCRLF() throws {
        let s = try Setup()
        let out = TempDirectory("mirror-out")
        let r = try ProcessRunner.run(BuiltProducts.corpusd, ["mirror", s.server.baseURL, "--out", out.url("tree"), "--trust", s.tree.rootPub, "--token", Self.injected])
        #expect(r.status == 2, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("refused the token from --token before sending it"), "\(r.stderr)")
        #expect(!r.stderr.contains("X-Injected"))
        #expect(s.server.requestCount == 0)
    }

    /// A sound token still goes to the origin, once per bundle request, as `Authorization: Bearer`.
    @Test func aWellFormedTokenIsStillSent() throws {
        let s = try Setup()
        let token = try s.tree.token(corpora: ["paid"])
        let r = try s.client.run(["install", "paid"], env: ["CORPUS_TOKEN": token])
        // The recording server does not verify tokens: the bundle is served, so the install succeeds.
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(s.server.requests.contains { $0.headers["authorization"] == "Bearer \(token)" })
    }
}
