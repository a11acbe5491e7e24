import Foundation
import CorpusCLIKit
import CorpusSync

/// Draws download progress: a bar with bytes, rate and ETA on a terminal, JSON lines on stderr
/// with `--json`, nothing with `--quiet` (or when stderr is not a terminal).
final class ProgressRenderer: @unchecked Sendable {
    // @unchecked: the mutable state below is only touched under `lock`.
    private let console: Console
    private let lock = NSLock()
    /// JSON lines at most every 0.25 s, a bar redraw every 0.1 s (and each transfer's last event).
    private var throttle: RedrawThrottle
    private var drewBar = false
    /// The cap in force (`--limit-rate`), shown with every download.
    private let limit: RateLimit?

    init(console: Console, limit: RateLimit? = nil) {
        self.console = console
        self.limit = limit
        throttle = RedrawThrottle(interval: console.json ? 0.25 : 0.1)
    }

    var handler: @Sendable (CorpusClient.Progress) -> Void {
        { [self] event in self.handle(event) }
    }

    private func handle(_ event: CorpusClient.Progress) {
        lock.lock()
        defer { lock.unlock() }
        if console.json {
            if case let .downloading(_, p) = event, !throttle.allows(final: p.bytesDone == p.total) { return }
            console.emitLine(ProgressLine(event, limit: limit?.bytesPerSecond))
            return
        }
        guard !console.quiet else { return }
        switch event {
        case let .downloading(name, p):
            guard console.isTerminal, throttle.allows(final: p.bytesDone == p.total) else { return }
            console.redraw(ProgressBar.line(name, done: p.bytesDone, total: p.total, bytesPerSecond: p.bytesPerSecond, eta: p.eta, limit: limit?.description))
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

/// One progress event of `install` or `sync` as a JSON line on stderr (docs/cli.md):
/// `{"event": "download", "corpus", "bytes", "total", "rate", "eta_s"?, "limit"?}` (limit: the cap in bytes per second), `{"event": "verify", "corpus"}`,
/// `{"event": "installed", "corpus", "version"}`.
struct ProgressLine: Encodable {
    let progress: CorpusClient.Progress
    let limit: Int64?

    init(_ progress: CorpusClient.Progress, limit: Int64? = nil) {
        self.progress = progress
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case event, corpus, bytes, total, rate, version, limit
        case eta = "eta_s"
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch progress {
        case let .downloading(name, p):
            try c.encode("download", forKey: .event)
            try c.encode(name, forKey: .corpus)
            try c.encode(p.bytesDone, forKey: .bytes)
            try c.encode(p.total, forKey: .total)
            try c.encode(Int(p.bytesPerSecond), forKey: .rate)
            try c.encodeIfPresent(p.eta, forKey: .eta)
            try c.encodeIfPresent(limit, forKey: .limit)
        case let .verifying(name):
            try c.encode("verify", forKey: .event)
            try c.encode(name, forKey: .corpus)
        case let .installed(name, version):
            try c.encode("installed", forKey: .event)
            try c.encode(name, forKey: .corpus)
            try c.encode(version, forKey: .version)
        }
    }
}
