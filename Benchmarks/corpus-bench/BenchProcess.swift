import Foundation
import CorpusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Child processes for the end-to-end benchmarks: run one to completion and time it (wall clock,
/// and peak RSS through `/usr/bin/time -v`), or keep a `corpusd serve` running on loopback.
enum BenchProcess {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
        /// `Maximum resident set size` of the command, when it ran under `/usr/bin/time -v`.
        var peakRSSKiB: Int?
    }

    /// Runs `executable arguments` to completion; output goes through files, so a chatty child
    /// can never block on a full pipe. With `measureRSS` the command runs under `/usr/bin/time -v`.
    static func run(_ executable: String, _ arguments: [String], measureRSS: Bool = false,
                    environment: [String: String]? = nil) throws -> Outcome {
        let dir = NSTemporaryDirectory() + "corpus-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outPath = "\(dir)/stdout", errPath = "\(dir)/stderr", timePath = "\(dir)/time"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)

        let p = Process()
        if measureRSS {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            p.arguments = ["-v", "-o", timePath, executable] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = arguments
        }
        if let environment { p.environment = environment }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let start = DispatchTime.now().uptimeNanoseconds
        try p.run()
        p.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var rss: Int?
        if measureRSS, let text = try? String(contentsOfFile: timePath, encoding: .utf8) {
            for line in text.split(separator: "\n") where line.contains("Maximum resident set size") {
                rss = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            }
        }
        return Outcome(status: p.terminationStatus,
                       stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                       seconds: seconds, peakRSSKiB: rss)
    }

    /// Runs a command that must succeed; its stdout.
    @discardableResult
    static func check(_ executable: String, _ arguments: [String]) throws -> String {
        let o = try run(executable, arguments)
        guard o.status == 0 else {
            throw BuildBench.BenchError("\(executable) \(arguments.joined(separator: " ")) exited \(o.status): \(o.stderr.prefix(2000))")
        }
        return o.stdout
    }

    /// The folder holding this executable: the release build's products (corpus, corpusd).
    static var productsDirectory: String {
        (CommandLine.arguments[0] as NSString).deletingLastPathComponent
    }

    /// Flushes dirty pages to disk, so that one measured run does not pay for the previous
    /// run's writeback.
    static func flushDisk() { sync() }

    /// Median and minimum of a list of timings.
    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.isEmpty ? 0 : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
    }

    /// A machine-readable result line for scripts/bench.sh:
    /// `RESULT<TAB>name<TAB>value<TAB>unit<TAB>peer<TAB>ratio<TAB>goal` ("-" where none; a goal
    /// ending in "x" applies to the ratio, any other goal to the value).
    static func result(_ name: String, _ value: Double, _ unit: String, peer: Double? = nil, ratio: Double? = nil, goal: String) {
        func f(_ x: Double?) -> String { x.map { String(format: "%.3g", $0) } ?? "-" }
        print(["RESULT", name, f(value), unit, f(peer), ratio.map { String(format: "%.2f", $0) } ?? "-", goal].joined(separator: "\t"))
    }
}

/// A server a benchmark runs (`corpusd serve`, nginx): started, waited for until `curl` with
/// `probe` succeeds (or the process ends), and stopped with SIGTERM when the benchmark ends.
final class BenchDaemon {
    let process = Process()

    init(_ executable: String, _ arguments: [String], probe: [String], name: String) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<300 {
            if (try? BenchProcess.run("/usr/bin/curl", ["-sS", "-o", "/dev/null"] + probe))?.status == 0 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        throw BuildBench.BenchError("\(name) did not come up")
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}

/// `corpusd serve` on a free loopback port, stopped with SIGTERM when the benchmark ends.
final class BenchServer {
    let port: UInt16
    private let daemon: BenchDaemon
    var url: String { "http://127.0.0.1:\(port)" }

    init(corpusd: String, root: String) throws {
        let port = freeLoopbackPort()
        self.port = port
        daemon = try BenchDaemon(corpusd, ["serve", root, "--listen", "127.0.0.1:\(port)", "--quiet"],
                                 probe: ["-f", "http://127.0.0.1:\(port)/healthz"], name: "corpusd serve on port \(port)")
    }

    func stop() { daemon.stop() }

    /// `corpusd_requests_total` by HTTP status, from `/metrics`.
    func requestsByStatus() throws -> [Int: Int] {
        let text = try BenchProcess.check("/usr/bin/curl", ["-fsS", "\(url)/metrics"])
        var out: [Int: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("corpusd_requests_total{status=\"") {
            let parts = line.split(separator: "\"")
            if parts.count >= 3, let status = Int(parts[1]), let n = Int(parts[2].split(separator: " ").last ?? "") { out[status] = n }
        }
        return out
    }
}
