import Foundation
import Dispatch
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

        // Signals are taken by a dispatch source, so they must not kill the process first.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
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
        let signalName = await waitForTermination()
        if !console.quiet && !console.json { console.err("\(signalName): finishing downloads in flight, then stopping") }
        let drained = server.stop(grace: .seconds(30))
        if !console.quiet && !console.json { console.err(drained ? "stopped" : "stopped (some downloads were cut off after 30 s)") }
    }

    /// Suspends until SIGTERM or SIGINT arrives; returns its name.
    private static func waitForTermination() async -> String {
        await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "corpusd.signals")
            let once = OnceFlag()
            var sources: [DispatchSourceSignal] = []
            for (sig, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                s.setEventHandler { if once.claim() { done.resume(returning: name) } }
                s.resume()
                sources.append(s)
            }
            // The sources live as long as the process serves; keep them from being released.
            SignalSources.keep(sources)
        }
    }
}

/// Holds the signal sources for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) private static var held: [DispatchSourceSignal] = []
    static func keep(_ s: [DispatchSourceSignal]) { held = s }
}

/// True exactly once, from any thread.
private final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if done { return false }
        done = true
        return true
    }
}
