import Foundation

/// A `corpus` home folder driven through the real `corpus` binary, as a user or a script would:
/// every call is a child process with `--home`, a clean environment (no `CORPUS_TOKEN` from the
/// caller) and short retry backoffs.
public final class PublishedTreeClient: @unchecked Sendable {
    // @unchecked: the folder is owned by one test.
    public let folder: TempDirectory
    public var home: String { folder.path + "/home" }
    /// Extra environment for every run (e.g. `CORPUS_TOKEN`).
    public var environment: [String: String] = [:]

    public init() {
        folder = TempDirectory("cli-home")
    }

    /// A new client whose home is a byte-for-byte copy of `other`'s (links stay links).
    public init(copying other: PublishedTreeClient) throws {
        folder = TempDirectory("cli-home")
        let r = try ProcessRunner.run("/bin/cp", ["-a", other.home, home])
        guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "cp: \(r.stderr)") }
        environment = other.environment
    }

    /// The environment a child `corpus` gets.
    public func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                   "HOME": folder.path, "CORPUS_RETRY_SCALE": "0.01", "TMPDIR": ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"]
        env.merge(environment) { _, new in new }
        env.merge(extra) { _, new in new }
        return env
    }

    /// Runs `corpus --home HOME args…`.
    @discardableResult
    public func run(_ args: [String], env extra: [String: String] = [:], timeout: TimeInterval = 120) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpus, ["--home", home] + args, environment: childEnvironment(extra), timeout: timeout)
    }

    /// Runs with `--json` and parses stdout (nil when it is not one JSON object).
    public func json(_ args: [String], env extra: [String: String] = [:]) throws -> (result: ProcessResult, object: [String: Any]?) {
        let r = try run(args + ["--json"], env: extra)
        let object = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any]
        return (r, object)
    }

    /// Starts `corpus --home HOME args…` without waiting (for kills and races). Its stdout goes to
    /// `stdout` (a file path) when given, else nowhere.
    public func start(_ args: [String], env extra: [String: String] = [:], stdout: String? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: BuiltProducts.corpus)
        p.arguments = ["--home", home] + args
        p.environment = childEnvironment(extra)
        p.standardInput = FileHandle.nullDevice
        if let stdout {
            _ = FileManager.default.createFile(atPath: stdout, contents: nil)
            p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
        } else {
            p.standardOutput = FileHandle.nullDevice
        }
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Adds the tree's catalog as remote `main`, pinned to its root key.
    @discardableResult
    public func addRemote(_ url: String, trust: String) throws -> ProcessResult {
        let r = try run(["remote", "add", "main", url, "--trust", trust])
        guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "corpus remote add: \(r.stderr)") }
        return r
    }

    /// Every file, folder and link of the home except lock files, which may come and go.
    public var snapshot: DirectorySnapshot {
        DirectorySnapshot(home, ignoring: { $0 == "locks" || $0.hasPrefix("locks/") })
    }

    /// Installed corpora as `id@version` from `corpus list --json` (nil if the command failed).
    public func installed() throws -> [String]? {
        let (r, o) = try json(["list"])
        guard r.status == 0, let items = o?["installed"] as? [[String: Any]] else { return nil }
        return items.compactMap { i in (i["id"] as? String).map { "\($0)@\(i["version"] as? String ?? "?")" } }.sorted()
    }

    /// Lexical hits for `query` as `corpus@version` with their text (nil if the command failed).
    public func search(_ query: String) throws -> [(corpus: String, text: String)]? {
        let (r, o) = try json(["search", query, "--lexical-only", "-k", "50"])
        guard r.status == 0, let hits = o?["hits"] as? [[String: Any]] else { return nil }
        return hits.map { h in ("\(h["corpus"] as? String ?? "?")@\(h["version"] as? String ?? "?")", h["text"] as? String ?? "") }
    }

    /// Names in a folder of the home (empty when it does not exist).
    public func entries(_ relative: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(home)/\(relative)")) ?? []).sorted()
    }
}
