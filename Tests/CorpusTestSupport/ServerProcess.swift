import Foundation

/// A real `corpusd serve` (or any server) child process for tests: started on a free loopback
/// port, awaited until it accepts connections, stopped with SIGTERM, killed if a test forgets.
public final class ServerProcess: @unchecked Sendable {
    public let process = Process()
    public let port: UInt16
    public let logs: TempDirectory
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts `executable arguments`, where `{PORT}` in any argument is replaced by a free port.
    public init(_ executable: String, _ arguments: [String], port: UInt16 = freeLoopbackPort(), waitUntilListening: Bool = true,
                environment: [String: String]? = nil) throws {
        self.port = port
        if let environment { process.environment = environment }
        logs = TempDirectory("server-logs")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments.map { $0.replacingOccurrences(of: "{PORT}", with: String(port)) }
        _ = FileManager.default.createFile(atPath: logs.url("stdout"), contents: nil)
        _ = FileManager.default.createFile(atPath: logs.url("stderr"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: logs.url("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logs.url("stderr")))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        if waitUntilListening { try waitForPort() }
    }

    /// Polls until the port accepts a connection (at most `timeout` seconds).
    public func waitForPort(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? RawConnection(port: port, timeout: 1)) != nil { return }
            if !process.isRunning { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "server exited: \(stderr)"]) }
            usleep(50_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "server never listened on \(port): \(stderr)"])
    }

    /// Waits until stdout contains `text` (the server prints its banner after it starts listening,
    /// so a test reading it the moment the port opens would race it).
    @discardableResult
    public func waitForStdout(containing text: String, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stdout.contains(text) { return true }
            if !process.isRunning { return stdout.contains(text) }
            usleep(20_000)
        }
        return false
    }

    public var stdout: String { (try? String(contentsOfFile: logs.url("stdout"), encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: logs.url("stderr"), encoding: .utf8)) ?? "" }

    /// Whether stderr holds `text` within `seconds`: `corpusd serve` writes its access log in
    /// batches off the request path, so a request's line can arrive after its response.
    public func stderrEventuallyContains(_ text: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            usleep(20_000)
        }
        return stderr.contains(text)
    }

    /// Sends SIGTERM and waits (at most `timeout`, then SIGKILL); returns the exit status.
    @discardableResult
    public func stop(timeout: TimeInterval = 30) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
