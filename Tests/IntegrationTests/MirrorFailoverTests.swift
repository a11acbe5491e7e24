import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Real processes end to end: `corpusd publish` writes the tree, `corpusd mirror` copies it twice,
/// one copy served by `corpusd serve`, the other by nginx with deploy/nginx.conf; the real `corpus`
/// client fails over from an origin stopped mid-download, refuses a tampered mirror and succeeds
/// from the next one.
@Suite struct MirrorFailoverTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The client's environment: fast backoff, no token or home from the caller's shell.
    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["CORPUS_RETRY_SCALE"] = "0.01"
        for name in ["CORPUS_TOKEN", "CORPUS_HOME"] { env.removeValue(forKey: name) }
        return env
    }

    func corpus(_ home: String, _ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpus, ["--home", home] + args, environment: Self.environment, timeout: 60)
    }

    func json(_ r: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\n\(r.stderr)")
    }

    func installed(_ home: String) throws -> Set<String> {
        let list = try json(try corpus(home, ["list", "--json"]))
        return Set(((list["installed"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
    }

    /// Flips one byte in the middle of a file, keeping its size (and so its content-addressed name).
    func tamper(_ path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[data.count / 2] ^= 0xff
        try data.write(to: URL(fileURLWithPath: path))
    }

    @Test(.enabled(if: MirrorNginx.binary != nil && getuid() == 0, "needs nginx, run as root"))
    func clientFailsOverFromAStoppedOriginAndPastATamperedMirror() throws {
        let fixture = try MirrorTreeFixture(almanacBytes: 1_200_000)
        try fixture.publish()
        let almanac = try fixture.bundlePath("almanac"), tides = try fixture.bundlePath("tides"), bread = try fixture.bundlePath("bread")
        let almanacSHA = try #require(try fixture.catalog().corpora.first { $0.id == "almanac" }).bundle.digest.hex

        // The origin serves the published tree; it can be told to stall a download.
        let origin = try MisbehavingServer(root: fixture.tree)
        defer { origin.stop() }

        // Two mirrors made by `corpusd mirror` from the origin.
        let work = TempDirectory("failover")
        chmod(work.path, 0o755) // nginx workers (nobody) read m2
        for name in ["m1", "m2"] {
            let r = try ProcessRunner.run(BuiltProducts.corpusd, ["mirror", origin.baseURL, "--out", work.url(name), "--trust", fixture.rootPub],
                                          environment: Self.environment, timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("mirrored catalog \(fixture.catalogID) version 1") && r.stdout.contains("3 fetched"), "\(r.stdout)")
        }
        // A rerun fetches nothing; a foreign pin is refused with exit 3 and changes nothing.
        let rerun = try ProcessRunner.run(BuiltProducts.corpusd, ["mirror", origin.baseURL, "--out", work.url("m1"), "--trust", fixture.rootPub],
                                          environment: Self.environment, timeout: 60)
        #expect(rerun.status == 0 && rerun.stdout.contains("0 fetched (0 B), 3 already present, 0 removed"), "\(rerun.stdout) \(rerun.stderr)")
        let snapshot = DirectorySnapshot(work.url("m1"))
        let foreign = try ProcessRunner.run(BuiltProducts.corpusd, ["mirror", origin.baseURL, "--out", work.url("m1"), "--trust", fixture.strangerPub, "--json"],
                                            environment: Self.environment, timeout: 60)
        #expect(foreign.status == 3 && foreign.stdout.contains(#""code":"signature""#), "\(foreign.stdout)")
        #expect(DirectorySnapshot(work.url("m1")) == snapshot)
        let m1 = try ServerProcess(BuiltProducts.corpusd, ["serve", work.url("m1"), "--listen", "127.0.0.1:{PORT}"])
        defer { m1.stop() }
        let m2 = try MirrorNginx(tree: work.url("m2"), packageRoot: Self.packageRoot)
        defer { m2.stop() }

        let home = TempDirectory("failover-home")
        let add = try corpus(home.path, ["remote", "add", "main", origin.baseURL, "--mirror", m1.url, "--mirror", m2.url, "--trust", fixture.rootPub])
        #expect(add.status == 0, "\(add.stderr)")

        // 1. The origin stalls the big bundle after 200 kB and is stopped once bytes have arrived:
        //    the client keeps the partial, gives up on the origin, and resumes from mirror 1.
        origin.setBehavior { $0.path == "/" + almanac ? .stallAfter(bytes: 200_000) : .normal }
        let install = Process()
        install.executableURL = URL(fileURLWithPath: BuiltProducts.corpus)
        install.arguments = ["--home", home.path, "install", "almanac", "--json"]
        install.environment = Self.environment
        let output = TempDirectory("failover-out")
        _ = FileManager.default.createFile(atPath: output.url("stdout"), contents: nil)
        _ = FileManager.default.createFile(atPath: output.url("stderr"), contents: nil)
        install.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.url("stdout")))
        install.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.url("stderr")))
        try install.run()
        defer { if install.isRunning { kill(install.processIdentifier, SIGKILL); install.waitUntilExit() } }
        let partial = home.url("downloads/\(almanacSHA).part")
        let deadline = Date().addingTimeInterval(30)
        while (FileIO.fileSize(partial) ?? 0) < 200_000 && install.isRunning && Date() < deadline { usleep(20_000) }
        #expect(FileIO.fileSize(partial) == 200_000, "the download never started")
        origin.stop()
        let stopDeadline = Date().addingTimeInterval(40)
        while install.isRunning && Date() < stopDeadline { usleep(20_000) }
        #expect(!install.isRunning, "install did not finish")
        install.waitUntilExit()
        let stderr1 = (try? String(contentsOfFile: output.url("stderr"), encoding: .utf8)) ?? ""
        #expect(install.terminationStatus == 0, "\(stderr1)")
        #expect(m1.stderrEventuallyContains("\"GET /\(almanac)\" 206"), "mirror 1 did not resume the partial:\n\(m1.stderr)")
        #expect(try installed(home.path) == ["almanac"])
        let hits = try json(try corpus(home.path, ["search", "equinox solstice", "--json"]))["hits"] as? [[String: Any]]
        #expect(hits?.first?["corpus"] as? String == "almanac")

        // 2. The origin is gone and mirror 1's copy of tides was tampered with: refused, then
        //    nginx's copy (mirror 2) verifies.
        try tamper(work.url("m1/\(tides)"))
        let second = try corpus(home.path, ["install", "tides"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(m1.stderrEventuallyContains("\"GET /\(tides)\" 200"), "\(m1.stderr)")
        #expect(m2.accessLog.contains("\"GET /\(tides)\" 200"))
        #expect(try installed(home.path) == ["almanac", "tides"])
        let tideHits = try json(try corpus(home.path, ["search", "neap tides", "--json", "--corpus", "tides"]))["hits"] as? [[String: Any]]
        #expect(tideHits?.isEmpty == false)

        // 3. Every reachable copy of bread is tampered with: exit 3, and the home is unchanged.
        try tamper(work.url("m1/\(bread)"))
        try tamper(work.url("m2/\(bread)"))
        let before = DirectorySnapshot(home.path) { $0.hasPrefix("locks") }
        let third = try corpus(home.path, ["install", "bread", "--json"])
        #expect(third.status == 3, "\(third.stdout) \(third.stderr)")
        let result = (try json(third)["results"] as? [[String: Any]])?.first
        #expect(result?["corpus"] as? String == "main/bread" && (result?["error"] as? [String: Any])?["code"] as? String == "integrity", "\(third.stdout)")
        #expect(DirectorySnapshot(home.path) { $0.hasPrefix("locks") } == before)
        #expect(try installed(home.path) == ["almanac", "tides"])
    }
}
