internal import CMicroHTTPD  // SHUT_RDWR: <sys/socket.h> comes in through the libmicrohttpd shim
import Foundation
import Synchronization

/// A bound on the time a whole request head may take to arrive, which libmicrohttpd lacks: its
/// `MHD_OPTION_CONNECTION_TIMEOUT` counts inactivity only, so a client sending one header line
/// every few seconds holds a connection (and its memory) forever.
///
/// The clock for a head starts when the connection opens and again when a response has been
/// sent (keep-alive), and stops when the head is complete. A watcher thread sleeps until the
/// earliest deadline of a head still arriving, or until woken when there is none; a connection
/// past its deadline is shut down (`shutdown(2)`, which libmicrohttpd notices as the peer going
/// away and answers by closing it). The descriptor is never closed here, and it is shut down only
/// while libmicrohttpd has not reported the connection closed, both under one lock, so a
/// descriptor number reused by a newer connection is never touched.
final class RequestHeadDeadline: Sendable {
    private struct Entry {
        let fd: Int32
        /// When the current head started; nil while a request is being answered.
        var since: ContinuousClock.Instant?
    }

    private struct State {
        var entries: [UInt: Entry] = [:]
        /// The watcher sleeps with no deadline: a head that starts must wake it.
        var watcherIdle = false
        var stopping = false
    }

    private let limit: Duration
    private let state = Mutex(State())
    /// Wakes the watcher: a head started while it slept with no deadline, or `stop`.
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    /// The watcher thread's name, for `top -H`, `ps -L` and debuggers (the kernel keeps 15 bytes).
    static let threadName = "corpusd-head-dl"

    /// `seconds` 0 turns the bound off.
    init(seconds: Int) {
        limit = .seconds(max(0, seconds))
    }

    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard limit > .zero, fd >= 0 else { return }
        headStarted { $0[Self.key(connection)] = Entry(fd: fd, since: .now) }
    }

    func headReceived(_ connection: OpaquePointer) {
        state.withLock { $0.entries[Self.key(connection)]?.since = nil }
    }

    func responseFinished(_ connection: OpaquePointer) {
        headStarted { $0[Self.key(connection)]?.since = .now }
    }

    func closed(_ connection: OpaquePointer) {
        _ = state.withLock { $0.entries.removeValue(forKey: Self.key(connection)) }
    }

    /// Records a head that started. Its deadline is later than any already pending, so the watcher
    /// needs waking only when it sleeps with no deadline at all.
    private func headStarted(_ update: (inout [UInt: Entry]) -> Void) {
        let idle = state.withLock { s in
            update(&s.entries)
            defer { s.watcherIdle = false }
            return s.watcherIdle
        }
        if idle { wake.signal() }
    }

    /// Starts the watcher thread (once).
    func start() {
        guard limit > .zero, !running.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            Self.nameCurrentThread(Self.threadName)
            watch()
            finished.signal()
        }
        thread.start()
    }

    /// Stops the watcher and waits for it to exit.
    func stop() {
        guard running.load(ordering: .relaxed), !stopped.exchange(true, ordering: .relaxed) else { return }
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    /// Shuts down the connections past their deadline, then sleeps until the next deadline, or
    /// until woken when no head is pending.
    private func watch() {
        while let next = state.withLock({ expire(&$0, now: .now) }) {
            wake.wait(until: next)
        }
    }

    /// Shuts down the connections past their deadline; the next deadline (`.some(nil)`: none
    /// pending), or nil once stopping.
    private func expire(_ s: inout State, now: ContinuousClock.Instant) -> ContinuousClock.Instant?? {
        if s.stopping { return nil }
        var next: ContinuousClock.Instant?
        for (key, entry) in s.entries {
            guard let since = entry.since else { continue }
            if now - since >= limit {
                _ = shutdown(entry.fd, Int32(SHUT_RDWR))
                s.entries[key]?.since = nil
            } else {
                next = min(next ?? since + limit, since + limit)
            }
        }
        s.watcherIdle = next == nil
        return .some(next)
    }

    /// Foundation's `Thread.name` does not reach the kernel on Linux, and `pthread_setname_np` is
    /// not imported into Swift; the kernel takes the name from `/proc/thread-self/comm` as well.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = name.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }
}
