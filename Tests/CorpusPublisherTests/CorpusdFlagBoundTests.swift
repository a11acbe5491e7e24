import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// Every duration and count flag of `corpusd` has a range, named in the refusal (exit 2), and a
/// refused publish leaves the tree byte-identical. `--expires 99999999d` was accepted and every
/// client then refused the catalog ("dates out of range").
@Suite struct CorpusdFlagBoundTests {
    static let usageHint = " (run with --help to see the commands and their options)\n"

    final class Fixture: PublishFolder {
        init() throws {
            try super.init("flag-bounds")
            try dir.write("catalog/catalog.json", #"{"id":"c","title":"C","corpora":[{"id":"a","version":"1","source":"a","access":"free"}]}"#)
            try dir.write("catalog/a/a.md", "# A\n\nSome words.")
        }

        func corpusd(_ args: [String]) throws -> ProcessResult { try ProcessRunner.run(BuiltProducts.corpusd, args) }

        /// `corpusd serve --gate-only` of the published tree on `port` (nil: `{PORT}` for `ServerProcess`).
        func gateOnly(port: UInt16?, _ extra: [String]) -> [String] {
            ["serve", tree, "--listen", "127.0.0.1:\(port.map(String.init) ?? "{PORT}")", "--gate-only", "--private", "s3://bucket/private-tree",
             "--endpoint", "http://127.0.0.1:9", "--public-url", "http://127.0.0.1:9/tree"] + extra
        }

        /// Credentials for the gate's presigner (never used: nothing is uploaded or fetched).
        static var storageEnvironment: [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["AWS_ACCESS_KEY_ID"] = "AKIDEXAMPLE"
            environment["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
            return environment
        }

        func publish(expires: String) throws -> ProcessResult {
            try corpusd(["publish", dir.url("catalog"), "--out", tree, "--key", keyPath, "--expires", expires])
        }

        func issue(_ extra: [String]) throws -> ProcessResult {
            // --aud: token issue requires the catalog a token is for (the server refuses one without).
            try corpusd(["token", "issue", "--key", keyPath, "--sub", "alice", "--corpora", "a", "--aud", "c"] + extra)
        }
    }

    @Test(arguments: ["99999999d", "367d", "53w", "59m", "3599s", "0s"])
    func anExpiryOutsideTheRangeIsAUsageErrorAndTheTreeIsUnchanged(expires: String) throws {
        let f = try Fixture()
        #expect(try f.publish(expires: "30d").status == 0)
        let before = DirectorySnapshot(f.tree, ignoring: { $0.hasSuffix(".publish.lock") })
        let r = try f.publish(expires: expires)
        #expect(r.status == 2)
        #expect(r.stderr == "error: --expires \(expires.debugDescription) is not a duration from 1h to 366d, like 12h, 30d or 2w" + Self.usageHint)
        #expect(DirectorySnapshot(f.tree, ignoring: { $0.hasSuffix(".publish.lock") }) == before)
    }

    @Test func theBoundsThemselvesArePublished() throws {
        let f = try Fixture()
        for expires in ["1h", "366d"] {
            let r = try f.publish(expires: expires)
            #expect(r.status == 0, "\(expires): \(r.stderr)")
        }
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(f.tree)/catalogs/2.json")))
        #expect(catalog.expiryDate!.timeIntervalSince(Timestamp.parse(catalog.issued)!) == 366 * 86400)
    }

    @Test func theLibraryRefusesAnExpiryOutsideTheRangeToo() throws {
        let f = try Fixture()
        #expect(throws: PublisherError.expiryOutOfRange(seconds: 99_999_999 * 86400, range: TreePublisher.expiryRange)) {
            try TreePublisher.publish(catalogDirectory: f.dir.url("catalog"), output: f.tree, key: try SecretKey(contentsOf: f.keyPath),
                                      expiresIn: 99_999_999 * 86400)
        }
        #expect(!FileIO.exists(f.tree))
    }

    @Test(arguments: ["99999999d", "1097d", "157w", "59s", "0m"])
    func aTokenLifetimeOutsideTheRangeIsAUsageError(expires: String) throws {
        let f = try Fixture()
        let r = try f.issue(["--expires", expires])
        #expect(r.status == 2)
        #expect(r.stderr == "error: --expires \(expires.debugDescription) is not a duration from 1m to 1096d, like 90s, 12h, 30d or 2w" + Self.usageHint)
        #expect(r.stdout.isEmpty)
    }

    @Test func tokenLifetimesAtTheBoundsAreIssued() throws {
        let f = try Fixture()
        for expires in ["60s", "1096d"] {
            let r = try f.issue(["--expires", expires])
            #expect(r.status == 0, "\(expires): \(r.stderr)")
        }
    }

    /// `serve --gate-only`: a presigned URL is a credential for its object until it expires, so
    /// its lifetime is bounded by `StorageRedirect.expiryRange` (30s to 1h), far under SigV4's own
    /// 7 days and the token's 1096 days. Refused before the server listens: the port stays closed.
    @Test(arguments: ["2h", "10s", "29s", "61m", "8d", "1096d"])
    func aPresignExpiryOutsideTheRangeExitsBeforeListening(expires: String) throws {
        let f = try Fixture()
        #expect(try f.publish(expires: "30d").status == 0)
        let before = DirectorySnapshot(f.tree)
        let port = freeLoopbackPort()
        // A short timeout: with the check gone the server would start and never exit.
        let r = try ProcessRunner.run(BuiltProducts.corpusd, f.gateOnly(port: port, ["--presign-expires", expires]),
                                      environment: Fixture.storageEnvironment, timeout: 20)
        #expect(r.status == 2, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr == "error: --presign-expires \(expires.debugDescription) is not a duration from 30s to 1h, like 90s, 5m or 15m" + Self.usageHint)
        #expect(r.stdout.isEmpty)
        #expect((try? RawConnection(port: port, timeout: 1)) == nil, "something listens on the port")
        #expect(DirectorySnapshot(f.tree) == before)
    }

    @Test(arguments: ["30s", "1h"])
    func presignExpiriesAtTheBoundsServe(expires: String) throws {
        let f = try Fixture()
        #expect(try f.publish(expires: "30d").status == 0)
        let server = try ServerProcess(BuiltProducts.corpusd, f.gateOnly(port: nil, ["--presign-expires", expires]), environment: Fixture.storageEnvironment)
        #expect(server.waitForStdout(containing: "serving "), "\(server.stderr)")
        #expect(server.stop() == 0)
    }

    @Test(arguments: ["99999999999", "10001", "-1", "1e3"])
    func anImportLimitOutsideTheRangeIsAUsageError(limit: String) throws {
        let f = try Fixture()
        let r = try f.issue(["--import-limit", limit])
        #expect(r.status == 2)
        #expect(r.stderr == "error: --import-limit \(limit.debugDescription) is not a whole number of corpora from 0 to 10000" + Self.usageHint)
    }

    @Test(arguments: ["corp\u{1B}[31md", "", String(repeating: "i", count: 257), "line\nbreak"])
    func anIssuerWithControlCharactersOrTooLongIsAUsageError(issuer: String) throws {
        let f = try Fixture()
        let r = try f.issue(["--iss", issuer])
        #expect(r.status == 2)
        #expect(r.stderr == "error: --iss \(issuer.debugDescription) is not 1-256 printable characters" + Self.usageHint)
    }
}
