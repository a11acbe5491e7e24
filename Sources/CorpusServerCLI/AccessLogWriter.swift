import Foundation
import Synchronization
import CorpusServer
import CorpusFormat

/// The access log of `corpusd serve`, off the request path: a request's thread only appends its
/// line to a buffer under a lock; one thread of its own writes the buffer to stderr every 100 ms
/// (or at once past 64 KiB), in one `write`. A line per request cost a `write` system call on the
/// serving thread before, which the profile of the small-file path showed among its largest costs.
final class AccessLogWriter: Sendable {
    private let buffer = Mutex(BufferState())
    private let wake = DispatchSemaphore(value: 0)
    private let fd: Int32
    static let flushBytes = 64 << 10

    struct BufferState {
        var bytes: [UInt8] = []
        var stopped = false
    }

    init(fd: Int32 = 2) {
        self.fd = fd
        let thread = Thread { [self] in run() }
        thread.name = "corpusd-access-log"
        thread.start()
    }

    /// Appends one entry; called on server threads.
    func append(_ entry: AccessLogEntry) {
        // Formatted before taking the lock, which then covers one copy: the serving threads
        // contended for it while each formatted its line inside.
        var line: [UInt8] = []
        line.reserveCapacity(96 + entry.path.utf8.count)
        entry.appendLine(to: &line)
        let full = buffer.withLock { state -> Bool in
            state.bytes.append(contentsOf: line)
            return state.bytes.count >= Self.flushBytes
        }
        if full { wake.signal() }
    }

    /// Writes what is buffered and stops the writer thread.
    func close() {
        buffer.withLock { $0.stopped = true }
        wake.signal()
        flush()
    }

    private func run() {
        while true {
            _ = wake.wait(timeout: .now() + .milliseconds(100))
            flush()
            if buffer.withLock({ $0.stopped }) { return }
        }
    }

    private func flush() {
        let bytes = buffer.withLock { state -> [UInt8] in
            defer { state.bytes.removeAll(keepingCapacity: true) }
            return state.bytes
        }
        // A log that cannot be written (stderr closed) drops its lines rather than stop serving.
        bytes.withUnsafeBytes { _ = try? FileIO.writeAll(fd, $0, path: "the access log") }
    }
}
