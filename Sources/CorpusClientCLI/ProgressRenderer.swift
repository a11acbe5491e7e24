import Foundation
import CorpusCLIKit
import CorpusSync

/// Draws download progress: a bar with bytes, rate and ETA on a terminal, JSON lines on stderr
/// with `--json`, nothing with `--quiet` (or when stderr is not a terminal).
final class ProgressRenderer: @unchecked Sendable {
    private let console: Console
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private var drewBar = false

    init(console: Console) { self.console = console }

    var handler: @Sendable (CorpusClient.Progress) -> Void {
        { [self] event in self.handle(event) }
    }

    private func handle(_ event: CorpusClient.Progress) {
        lock.lock()
        defer { lock.unlock() }
        if console.json {
            switch event {
            case let .downloading(name, p):
                let now = Date()
                guard now.timeIntervalSince(lastDraw) >= 0.25 || p.bytesDone == p.total else { return }
                lastDraw = now
                var obj: [String: Any] = ["event": "download", "corpus": name, "bytes": p.bytesDone, "total": p.total,
                                          "rate": Int(p.bytesPerSecond)]
                if let eta = p.eta { obj["eta_s"] = eta }
                console.emitLine(obj)
            case let .verifying(name): console.emitLine(["event": "verify", "corpus": name])
            case let .installed(name, version): console.emitLine(["event": "installed", "corpus": name, "version": version])
            }
            return
        }
        guard !console.quiet else { return }
        switch event {
        case let .downloading(name, p):
            guard console.isTerminal else { return }
            let now = Date()
            guard now.timeIntervalSince(lastDraw) >= 0.1 || p.bytesDone == p.total else { return }
            lastDraw = now
            let fraction = p.total > 0 ? Double(p.bytesDone) / Double(p.total) : 0
            let width = 24
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let eta = p.eta.map { String(format: " ETA %.0fs", $0) } ?? ""
            console.redraw("\(name) \(bar) \(ByteFormat.size(p.bytesDone))/\(ByteFormat.size(p.total)) \(ByteFormat.size(Int64(p.bytesPerSecond)))/s\(eta)   ")
            drewBar = true
        case let .verifying(name):
            if drewBar { console.progress("\n"); drewBar = false }
            if console.isTerminal { console.progress("verifying \(name)…\n") }
        case .installed:
            break
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drewBar { console.progress("\n"); drewBar = false }
    }
}
