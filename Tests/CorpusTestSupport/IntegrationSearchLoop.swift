import Foundation

/// Another process searching a home over and over: a `/bin/sh` loop that runs
/// `corpus --home HOME search QUERY --json` back to back, keeping every run's stdout and exit
/// status, until told to stop. It stands for an app reading the corpora while `corpus sync`
/// swaps versions under it; nothing is shared with the test process but the files.
public final class IntegrationSearchLoop: @unchecked Sendable {
    public let out: TempDirectory
    private let process = Process()

    /// One finished search: its exit status and the JSON it printed.
    public struct Run: Sendable {
        public let number: Int
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    static let script = """
    # $1 corpus binary, $2 home, $3 output folder, $4 query, $5 at most this many runs
    n=0
    while [ ! -e "$3/stop" ] && [ "$n" -lt "$5" ]; do
      n=$((n + 1))
      "$1" --home "$2" search "$4" -k 20 --json > "$3/$n.json" 2> "$3/$n.err"
      echo $? > "$3/$n.rc.tmp" && mv "$3/$n.rc.tmp" "$3/$n.rc"
    done
    """

    public init(home: String, query: String, maxRuns: Int = 500) throws {
        out = TempDirectory("search-loop")
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", Self.script, "search-loop", BuiltProducts.corpus, home, out.path, query, String(maxRuns)]
        process.environment = IntegrationClient.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// How many searches have finished (their status file is written last, by a rename).
    public var finished: Int {
        var n = 0
        while FileManager.default.fileExists(atPath: out.url("\(n + 1).rc")) { n += 1 }
        return n
    }

    /// Waits until at least `count` searches finished (or the loop ended, or `timeout` passed).
    @discardableResult
    public func waitUntilFinished(_ count: Int, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while finished < count && process.isRunning && Date() < deadline { usleep(20_000) }
        return finished >= count
    }

    /// Asks the loop to stop after the search in flight and waits for it; returns every run.
    public func stop(timeout: TimeInterval = 60) -> [Run] {
        _ = FileManager.default.createFile(atPath: out.url("stop"), contents: nil)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (0..<finished).map { i in
            let n = i + 1
            let rc = (try? String(contentsOfFile: out.url("\(n).rc"), encoding: .utf8)) ?? ""
            return Run(number: n, status: Int32(rc.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                       stdout: (try? String(contentsOfFile: out.url("\(n).json"), encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOfFile: out.url("\(n).err"), encoding: .utf8)) ?? "")
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
