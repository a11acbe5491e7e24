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
