import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// A URL with credentials in it (`http://AK:SECRET@host`, `s3://AK:SECRET@bucket`) given to any
/// `corpusd` option is refused (exit 2) before anything is written or listened on, by one line
/// that names the option, says why and where credentials belong, and never shows them. The
/// refusal of `--endpoint` once printed the secret twice and read `--endpoint "URL" is not URL
/// is not an S3 endpoint`.
@Suite struct CredentialsInURLTests {
    static let secret = "SECRETLEAK"
    static let accessKey = "AKIDLEAK"
    static let withCredentials = "http://\(accessKey):\(secret)@127.0.0.1:9"
    static let why = "holds credentials (USER:PASSWORD@ in its URL), which anyone on this machine can read from a command line"
    static let awsKeys = "the keys go in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or ~/.aws/credentials)"

    final class Fixture: PublishFolder {
        init() throws {
            try super.init("credentials-in-url")
            try dir.write("catalog/catalog.json", #"{"id":"c","title":"C","corpora":[{"id":"a","version":"1","source":"a","access":"free"}]}"#)
            try dir.write("catalog/a/a.md", "# A\n\nSome words.")
            try key.publicKey.fileText.write(toFile: dir.url("keys/root.pub"), atomically: true, encoding: .utf8)
        }

        func corpusd(_ args: [String]) throws -> ProcessResult {
            var environment = ProcessInfo.processInfo.environment
            environment["AWS_ACCESS_KEY_ID"] = "AKIDEXAMPLE"
            environment["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
            return try ProcessRunner.run(BuiltProducts.corpusd, args, environment: environment, timeout: 20)
        }

        func publish(_ extra: [String] = []) throws -> ProcessResult {
            try corpusd(["publish", catalog, "--out", tree, "--key", keyPath] + extra)
        }

        func gateOnly(endpoint: String = "http://127.0.0.1:9", publicURL: String = "http://127.0.0.1:9/tree") -> [String] {
            ["serve", tree, "--listen", "127.0.0.1:\(freeLoopbackPort())", "--gate-only", "--private", "s3://bucket/private-tree",
             "--endpoint", endpoint, "--public-url", publicURL]
        }
    }

    /// Each command line, and the line it must be refused with.
    static func cases(_ f: Fixture) -> [(name: String, args: [String], line: String)] {
        let endpointLine = "error: --endpoint \(why) (give the service's address alone, like https://HOST[:PORT]; \(awsKeys))\n"
        let locationLine = { (option: String) in "error: \(option) \(why) (give the location alone, like s3://BUCKET/PREFIX; \(awsKeys))\n" }
        return [
            ("serve --endpoint", f.gateOnly(endpoint: withCredentials), endpointLine),
            ("serve --public-url", f.gateOnly(publicURL: withCredentials + "/tree"),
             "error: --public-url \(why) (give the public tree's URL alone: every client is sent it in redirects)\n"),
            ("publish --endpoint", ["publish", f.catalog, "--out", f.dir.url("other"), "--key", f.keyPath, "--to", "s3://bucket/tree", "--endpoint", withCredentials], endpointLine),
            ("publish --to", ["publish", f.catalog, "--out", f.dir.url("other"), "--key", f.keyPath, "--to", "s3://\(accessKey):\(secret)@bucket/tree",
                              "--endpoint", "http://127.0.0.1:9"], locationLine("--to")),
            ("publish --private", ["publish", f.catalog, "--out", f.dir.url("other"), "--key", f.keyPath, "--to", "s3://bucket/tree",
                                   "--private", "s3://\(accessKey):\(secret)@bucket/private", "--endpoint", "http://127.0.0.1:9"], locationLine("--private")),
            ("upload --endpoint", ["upload", f.tree, "--to", "s3://bucket/tree", "--endpoint", withCredentials], endpointLine),
            ("upload without a scheme", ["upload", f.tree, "--to", "s3://bucket/tree", "--endpoint", "\(accessKey):\(secret)@127.0.0.1:9"], endpointLine),
            ("mirror --endpoint", ["mirror", "http://127.0.0.1:9", "--out", f.dir.url("other"), "--trust", f.dir.url("keys/root.pub"),
                                   "--to", "s3://bucket/tree", "--endpoint", withCredentials], endpointLine),
            ("mirror UPSTREAM_URL", ["mirror", withCredentials, "--out", f.dir.url("other"), "--trust", f.dir.url("keys/root.pub")],
             "error: UPSTREAM_URL \(why) (give the URL alone; an entitlement token goes in --token or CORPUS_TOKEN)\n"),
        ]
    }

    @Test func aURLWithCredentialsIsRefusedWithoutShowingThem() throws {
        let f = try Fixture()
        #expect(try f.publish().status == 0)
        let before = DirectorySnapshot(f.dir.path)
        for c in Self.cases(f) {
            let r = try f.corpusd(c.args)
            #expect(r.status == 2, "\(c.name): \(r.stderr)")
            #expect(r.stderr == c.line, "\(c.name)")
            #expect(!r.stderr.contains(Self.secret) && !r.stdout.contains(Self.secret), "\(c.name)")
            #expect(!r.stderr.contains(Self.accessKey), "\(c.name)")
            #expect(r.stdout.isEmpty, "\(c.name)")
            #expect(DirectorySnapshot(f.dir.path) == before, "\(c.name)")
        }
    }

    /// A value with credentials refused for another reason (given without the option it goes
    /// with, or not an http(s) URL) is shown with its user part left out: `serve --endpoint
    /// http://AK:SECRET@host` without `--gate-only`, and `publish --endpoint …` without `--to`,
    /// printed the secret in "is not to be given with …".
    @Test func aValueRefusedForAnotherReasonNeverShowsItsCredentials() throws {
        let f = try Fixture()
        #expect(try f.publish().status == 0)
        let before = DirectorySnapshot(f.dir.path)
        let hint = " (run with --help to see the commands and their options)\n"
        let cases: [(name: String, args: [String], line: String)] = [
            ("serve --endpoint without --gate-only", ["serve", f.tree, "--listen", "127.0.0.1:\(freeLoopbackPort())", "--endpoint", Self.withCredentials],
             "error: --endpoint \"http://…@127.0.0.1:9\" is not to be given with --gate-only" + hint),
            ("publish --endpoint without --to", ["publish", f.catalog, "--out", f.dir.url("other"), "--key", f.keyPath, "--endpoint", Self.withCredentials],
             "error: --endpoint \"http://…@127.0.0.1:9\" is not to be given with --to" + hint),
            ("serve --public-url ftp://", f.gateOnly(publicURL: "ftp://\(Self.accessKey):\(Self.secret)@127.0.0.1:9/tree"),
             "error: --public-url \"ftp://…@127.0.0.1:9/tree\" is not an http or https URL with a host" + hint),
        ]
        for c in cases {
            let r = try f.corpusd(c.args)
            #expect(r.status == 2, "\(c.name): \(r.stderr)")
            #expect(r.stderr == c.line, "\(c.name)")
            #expect(!r.stderr.contains(Self.secret) && !r.stderr.contains(Self.accessKey) && r.stdout.isEmpty, "\(c.name)")
            #expect(DirectorySnapshot(f.dir.path) == before, "\(c.name)")
        }
    }

    /// The other mistakes in these values read as one sentence, the value once.
    @Test func otherMistakesNameTheValueOnce() throws {
        let f = try Fixture()
        #expect(try f.publish().status == 0)
        let hint = " (run with --help to see the commands and their options)\n"
        let cases: [([String], String)] = [
            (["upload", f.tree, "--to", "s3://bucket/tree", "--endpoint", "ftp://127.0.0.1:9"],
             "error: --endpoint \"ftp://127.0.0.1:9\" is not an S3 endpoint: it is not an http or https URL" + hint),
            (["upload", f.tree, "--to", "s3://bucket/tree", "--endpoint", "http://127.0.0.1:9/path"],
             "error: --endpoint \"http://127.0.0.1:9/path\" is not an S3 endpoint: give the service's address only (scheme, host, port), without a path, query or user" + hint),
            (["upload", f.tree, "--to", "s3://Bucket/tree", "--endpoint", "http://127.0.0.1:9"],
             "error: --to \"s3://Bucket/tree\" is not an s3://BUCKET[/PREFIX] location: the bucket name must be 3 to 63 of a-z 0-9 . - with a letter or digit at each end" + hint),
            (["upload", f.tree, "--to", "s3://bucket/tree", "--endpoint", "http://127.0.0.1:9", "--region", "EU WEST"],
             "error: --region \"EU WEST\" is not a region name (a-z 0-9 -)" + hint),
        ]
        for (args, line) in cases {
            let r = try f.corpusd(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr == line)
        }
    }
}
