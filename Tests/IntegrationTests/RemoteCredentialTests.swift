import Testing
import Foundation
import CorpusTestSupport

/// `corpus remote add c http://alice:SECRET@host …` was accepted, and the password printed by
/// `remote add`, `remote list`, `--json remote list` and `--json status`. A URL with credentials is
/// now refused (exit 2, the credential never shown, nothing written), and a configuration that
/// already holds one (written by hand or by an older client) never shows it either.
@Suite struct RemoteCredentialTests {
    final class Setup: @unchecked Sendable {
        let keys = TempDirectory("remote-cred-keys")
        let client = PublishedTreeClient()
        init() throws {
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["keygen", "--out", keys.path, "--name", "root"])
            guard r.status == 0 else { throw IntegrationError("keygen: \(r.stderr)") }
        }
        var pub: String { keys.url("root.pub") }
    }

    @Test(arguments: [
        (["http://alice:SECRET@127.0.0.1:9"], "http://…@127.0.0.1:9"),
        (["http://127.0.0.1:9", "--mirror", "https://bob:SECRET@127.0.0.1:10/tree"], "https://…@127.0.0.1:10/tree"),
        (["http://127.0.0.1:9", "--storage", "http://AK:SECRET@127.0.0.1:11"], "http://…@127.0.0.1:11"),
        (["http://SECRET@127.0.0.1:9"], "http://…@127.0.0.1:9"),
    ])
    func aURLWithCredentialsIsRefusedWithoutShowingThem(_ urls: [String], _ shown: String) throws {
        let s = try Setup()
        let before = s.client.snapshot
        for json in [false, true] {
            let args = ["remote", "add", "c"] + urls + ["--trust", s.pub] + (json ? ["--json"] : [])
            let r = try s.client.run(args)
            #expect(r.status == 2, "exit \(r.status): \(r.stdout) \(r.stderr)")
            #expect(!r.stdout.contains("SECRET") && !r.stderr.contains("SECRET"), "\(r.stdout) \(r.stderr)")
            let text = json ? r.stdout : r.stderr
            #expect(text.contains("invalid-remote") || !json)
            #expect(text.contains("the URL \(shown) holds a user name or password; a catalog URL carries no credentials"), "\(text)")
        }
        #expect(s.client.snapshot == before, "nothing written")
    }

    /// A configuration holding credentials from before: listings and status show them as `…`.
    @Test func aConfigurationHoldingCredentialsNeverShowsThem() throws {
        let s = try Setup()
        try s.client.addRemote("http://127.0.0.1:9", trust: s.pub)
        let config = s.client.home + "/config.json"
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "http://127.0.0.1:9", with: "http://alice:SECRET@127.0.0.1:9")
            .write(toFile: config, atomically: true, encoding: .utf8)
        for args in [["remote", "list"], ["remote", "list", "--json"], ["status", "--json"], ["status"]] {
            let r = try s.client.run(args)
            #expect(!r.stdout.contains("SECRET") && !r.stderr.contains("SECRET"), "\(args): \(r.stdout) \(r.stderr)")
            if args != ["status"] {  // human `status` names the catalog, not its URL
                #expect(r.stdout.contains("http://…@127.0.0.1:9") || r.stdout.contains(#"http:\/\/…@127.0.0.1:9"#), "\(args): \(r.stdout)")
            }
        }
    }
}
