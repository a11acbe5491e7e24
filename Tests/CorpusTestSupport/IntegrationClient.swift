import Foundation

/// A user's home folder driven only through the built `corpus` binary, as a script would:
/// `--home` set, no token or home inherited from the environment running the tests.
public final class IntegrationClient: @unchecked Sendable {
    public let homeDir: TempDirectory
    public var home: String { homeDir.path }

    public init(_ label: String = "home") {
        homeDir = TempDirectory("integration-\(label)")
    }

    /// The environment every `corpus` run gets: the caller's, minus anything that would point it
    /// at another home or send a token; retries shortened so a refusal path ends quickly.
    public static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["CORPUS_TOKEN"] = nil
        env["CORPUS_HOME"] = nil
        env["CORPUS_RETRY_SCALE"] = "0.01"
        return env
    }

    /// `corpus --home HOME ARGS…`.
    @discardableResult
    public func run(_ arguments: [String], timeout: TimeInterval = 120) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProducts.corpus, ["--home", home] + arguments, environment: Self.environment, timeout: timeout)
    }

    /// `corpus --home HOME ARGS… --json`: the exit status and the one JSON object on stdout.
    public func json(_ arguments: [String], timeout: TimeInterval = 120) throws -> (status: Int32, object: [String: Any], result: ProcessResult) {
        let r = try run(arguments + ["--json"], timeout: timeout)
        return (r.status, try Self.parse(r), r)
    }

    /// Runs and throws unless the command exited 0.
    @discardableResult
    public func must(_ arguments: [String]) throws -> ProcessResult {
        let r = try run(arguments)
        guard r.status == 0 else { throw IntegrationError("corpus \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)") }
        return r
    }

    /// The JSON object a `--json` run printed on stdout.
    public static func parse(_ r: ProcessResult) throws -> [String: Any] {
        try parse(stdout: r.stdout, status: r.status, stderr: r.stderr)
    }

    public static func parse(stdout: String, status: Int32, stderr: String) throws -> [String: Any] {
        guard let obj = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw IntegrationError("not one JSON object on stdout (exit \(status)): \(stdout.prefix(400)) / stderr: \(stderr.prefix(400))")
        }
        return obj
    }

    /// The home folder's files, without `locks/` (lock files may come and go on a refusal).
    public var snapshot: DirectorySnapshot {
        DirectorySnapshot(home) { $0 == "locks" || $0.hasPrefix("locks/") }
    }
}

/// `corpus search --json` results, reduced to what integration tests compare.
public struct IntegrationHit: Sendable, Equatable {
    public let corpus: String
    public let version: String
    public let document: String
    public let text: String
    public let lexicalRank: Int?

    public static func hits(_ object: [String: Any]) -> [IntegrationHit] {
        ((object["hits"] as? [[String: Any]]) ?? []).map { h in
            IntegrationHit(corpus: h["corpus"] as? String ?? "", version: h["version"] as? String ?? "",
                           document: h["document"] as? String ?? "", text: h["text"] as? String ?? "",
                           lexicalRank: (h["ranks"] as? [String: Any])?["lexical"] as? Int)
        }
    }
}
