import Foundation

/// Runs real programs (minisign, sqlite3, the built corpus and corpusd) from tests.
public struct ProcessResult: Sendable {
    public let status: Int32
    /// Standard output as bytes, for programs whose output is not text.
    public let stdoutData: Data
    public let stderr: String

    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
}

public enum ProcessRunner {
    /// Runs `executable` with `arguments`, waiting at most `timeout` seconds (then SIGKILL, status 124 reported).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: Data? = nil, currentDirectory: String? = nil, timeout: TimeInterval = 120) throws -> ProcessResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try which(executable))
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let currentDirectory { p.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try? inp.fileHandleForWriting.close()
        // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while p.isRunning {
            if Date() > deadline { kill(p.processIdentifier, SIGKILL); timedOut = true; break }
            usleep(10_000)
        }
        p.waitUntilExit()
        group.wait()
        return ProcessResult(status: timedOut ? 124 : p.terminationStatus,
                             stdoutData: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// The full path of a program on PATH (also looking in /usr/sbin for nginx).
    public static func which(_ name: String) throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/usr/bin:/sbin:/bin"
        for dir in path.split(separator: ":") {
            let full = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: full) { return full }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    /// True when a program is on PATH.
    public static func has(_ name: String) -> Bool { (try? which(name)) != nil }
}

/// Locations of the package's own built products, for tests that run them as real processes.
public enum BuiltProducts {
    /// The folder holding `corpus` and `corpusd` (the test bundle's own build folder).
    public static var directory: String {
        if let env = ProcessInfo.processInfo.environment["CORPUS_BIN_DIR"] { return env }
        // Tests run from .build/<triple>/debug/<name>.xctest; products sit beside it.
        let exe = Bundle.main.executablePath ?? CommandLine.arguments[0]
        var dir = (exe as NSString).deletingLastPathComponent
        while !dir.isEmpty && dir != "/" {
            if FileManager.default.isExecutableFile(atPath: "\(dir)/corpusd") { return dir }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }

    public static var corpus: String { "\(directory)/corpus" }
    public static var corpusd: String { "\(directory)/corpusd" }
}
