import Testing
import Foundation
import CorpusTestSupport

/// One version everywhere: `corpus --version`, `corpusd --version`, both man pages (checked with
/// `mandoc -T lint`, which must have nothing to say) and the User-Agent of the client's requests.
@Suite struct VersionCLITests {
    static func output(_ program: String, _ arguments: [String]) throws -> String {
        let r = try ProcessRunner.run(program, arguments)
        try #require(r.status == 0, "\(program) \(arguments): \(r.stderr)")
        return r.stdout
    }

    static var version: String {
        get throws { try output(BuiltProducts.corpus, ["--version"]).replacingOccurrences(of: "corpus ", with: "").trimmingCharacters(in: .newlines) }
    }

    @Test func bothProgramsAndBothManPagesPrintOneVersion() throws {
        let version = try Self.version
        #expect(version.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil, "\(version)")
        #expect(try Self.output(BuiltProducts.corpusd, ["--version"]) == "corpusd \(version)\n")
        let pages = TempDirectory("manpages")
        for (program, section) in [(BuiltProducts.corpus, "1"), (BuiltProducts.corpusd, "8")] {
            let page = try Self.output(program, ["--manpage"])
            let name = (program as NSString).lastPathComponent
            #expect(page.contains(".TH \(name.uppercased()) \(section) "), "\(page.prefix(300))")
            #expect(page.contains("\"CorpusSync \(version)\""))
            let file = try pages.write("\(name).\(section)", page)
            let lint = try ProcessRunner.run("/usr/bin/mandoc", ["-T", "lint", "-W", "all", file])
            #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")
        }
        // Every command of the table has its section in the page.
        let page = try Self.output(BuiltProducts.corpusd, ["--manpage"])
        for command in ["keygen", "publish", "serve", "mirror", "root draft"] { #expect(page.contains(".SS \"\(command)\"")) }
    }

    @Test func theClientsRequestsNameTheVersionInTheirUserAgent() throws {
        let version = try Self.version
        let tree = try PublishedCorpusTree(corpora: [.init(id: "tides", documents: PublishedCorpusTree.documents("tide chart"))])
        let server = try MisbehavingServer(root: tree.publicDir)
        defer { server.stop() }
        let client = IntegrationClient("version-home")
        try client.must(["remote", "add", "main", server.baseURL, "--trust", tree.rootPub])
        try client.must(["install", "tides"])
        #expect(server.requestCount > 2)
        for request in server.requests { #expect(request.headers["user-agent"] == "corpus/\(version)", "\(request.path)") }
    }
}
