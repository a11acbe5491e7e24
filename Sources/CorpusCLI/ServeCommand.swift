import Foundation
import CorpusFormat
import CorpusServer

/// `corpusd serve PUBLIC_DIR [--listen HOST:PORT] [--entitlement-pub PUB]`
enum ServeCommand {
    static let spec = CommandSpec(
        ["serve"], "PUBLIC_DIR [--listen HOST:PORT] [--entitlement-pub PUB]",
        "serve a published tree over HTTP; bundles of entitled corpora need a token signed by PUB",
        positionals: 1...1,
        options: [.value("--listen", "address to listen on (default 127.0.0.1:8080)"),
                  .value("--entitlement-pub", "public key (minisign .pub) that signs entitlement tokens"),
                  .value("--threads", "worker threads (default: CPUs, at most 4)")])

    static func run(_ cmd: ParsedCommand, _ console: Console) async throws {
        let root = cmd.positionals[0]
        var config = ServerConfiguration(root: root)
        do {
            (config.host, config.port) = try ServerConfiguration.parseListen(cmd.value("--listen") ?? "127.0.0.1:8080")
        } catch {
            throw UsageError.invalidValue(option: "--listen", value: cmd.value("--listen") ?? "", expected: "HOST:PORT with an IPv4 host")
        }
        if let pub = cmd.value("--entitlement-pub") { config.entitlementKey = try PublicKey(contentsOf: pub) }
        if let t = cmd.value("--threads") {
            guard let n = Int(t), (1...64).contains(n) else { throw UsageError.invalidValue(option: "--threads", value: t, expected: "a number from 1 to 64") }
            config.threads = n
        }
        if !console.quiet && !console.json {
            config.accessLog = { entry in console.err(entry.description) }
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw ErrorReport(code: "not-found", message: "\(root) is not a folder", hint: "give the folder `corpusd publish --out` wrote", exit: .notFound)
        }

        // Catch the signals before any server thread exists; the handler only writes to a pipe.
        let signals = try TerminationSignals()
        let server: HTTPServer
        do {
            server = try HTTPServer(config)
        } catch {
            throw ErrorReport(code: "listen", message: error.description, hint: "choose another --listen address or stop what uses it", exit: .localIO)
        }
        if console.json {
            console.emit(["serving": root, "url": "http://\(server.host):\(server.port)"])
        } else {
            console.info("serving \(root) on http://\(server.host):\(server.port)")
        }
        if config.entitlementKey == nil && !console.quiet && !console.json {
            console.err("note: no --entitlement-pub given; bundles of entitled corpora are refused (403)")
        }
        let signalName = await signals.wait()
        if !console.quiet && !console.json { console.err("\(signalName): finishing downloads in flight, then stopping") }
        let drained = server.stop(grace: .seconds(30))
        if !console.quiet && !console.json { console.err(drained ? "stopped" : "stopped (some downloads were cut off after 30 s)") }
    }
}

/// SIGTERM and SIGINT, turned into an awaitable event with the self-pipe trick: the handler (which
/// may run on any thread, libmicrohttpd's included) only writes the signal number to a pipe, and
/// a plain thread blocked on the pipe resumes the waiting task. Unlike a dispatch signal source,
/// this does not depend on which threads happen to block the signal.
private final class TerminationSignals: @unchecked Sendable {
    nonisolated(unsafe) private static var writeFD: Int32 = -1
    private let readFD: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FormatError.io(operation: "pipe", path: "-", errno: errno) }
        readFD = fds[0]
        Self.writeFD = fds[1]
        for sig in [SIGTERM, SIGINT] {
            signal(sig) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(TerminationSignals.writeFD, &byte, 1)
            }
        }
    }

    /// Suspends until SIGTERM or SIGINT arrives; returns its name.
    func wait() async -> String {
        await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            let fd = readFD
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) < 0 && errno == EINTR {}
                done.resume(returning: Int32(byte) == SIGINT ? "SIGINT" : "SIGTERM")
            }
        }
    }
}
