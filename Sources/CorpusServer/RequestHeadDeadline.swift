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
    /// One connection's clock, kept in libmicrohttpd's socket context for the connection's life, so
    /// that a request starts and stops it with one atomic store and no lock.
    final class Watch: Sendable {
        let fd: Int32
        /// Nanoseconds after `origin` (plus 1) at which the current head started; 0 while a
        /// request is being answered.
        let since = Atomic<Int64>(0)

        init(fd: Int32) { self.fd = fd }
    }

    private struct State {
        /// The connections libmicrohttpd has not reported closed.
        var watches: [ObjectIdentifier: Watch] = [:]
        var stopping = false
    }

    private let limit: Duration
    private let origin = ContinuousClock.now
    private let state = Mutex(State())
    /// The watcher sleeps with no deadline: a head that starts must wake it. Set by the watcher
    /// before it looks at the clocks a last time, read by a request after it started one (both
    /// sequentially consistent), so one of the two always sees the other.
    private let watcherIdle = Atomic<Bool>(false)
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

    /// A connection opened: its first head's clock starts. nil when the bound is off.
    func opened(fd: Int32) -> Watch? {
        guard limit > .zero, fd >= 0 else { return nil }
        let watch = Watch(fd: fd)
        state.withLock { $0.watches[ObjectIdentifier(watch)] = watch }
        headStarted(watch)
        return watch
    }

    func headReceived(_ watch: Watch) {
        watch.since.store(0, ordering: .sequentiallyConsistent)
    }

    /// A response was sent: the next head on the kept-alive connection gets a bound of its own.
    func responseFinished(_ watch: Watch) {
        headStarted(watch)
    }

    /// libmicrohttpd reports the connection closed (before it closes the descriptor).
    func closed(_ watch: Watch) {
        _ = state.withLock { $0.watches.removeValue(forKey: ObjectIdentifier(watch)) }
    }

    /// Starts a head's clock. Its deadline is later than any already pending, so the watcher
    /// needs waking only when it sleeps with no deadline at all.
    private func headStarted(_ watch: Watch) {
        watch.since.store(stamp(.now), ordering: .sequentiallyConsistent)
        if watcherIdle.load(ordering: .sequentiallyConsistent), watcherIdle.exchange(false, ordering: .sequentiallyConsistent) {
            wake.signal()
        }
    }

    private func stamp(_ t: ContinuousClock.Instant) -> Int64 {
        let d = (t - origin).components
        return d.seconds * 1_000_000_000 + d.attoseconds / 1_000_000_000 + 1
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
        while true {
            guard var next = state.withLock({ expire($0, now: .now) }) else { return }
            if next == nil {
                // Say so, then look once more: a head that started before this store was missed by
                // the scan but is seen now; one that starts after it sees the flag and wakes us.
                watcherIdle.store(true, ordering: .sequentiallyConsistent)
                guard let again = state.withLock({ expire($0, now: .now) }) else { return }
                next = again
                if next != nil { watcherIdle.store(false, ordering: .sequentiallyConsistent) }
            }
            if let next { wake.wait(until: next) } else { wake.wait() }
        }
    }

    /// Shuts down the connections past their deadline; the next deadline (`.some(nil)`: none
    /// pending), or nil once stopping. Runs under the lock, so a connection libmicrohttpd has
    /// reported closed (its descriptor number free for reuse) is never touched.
    private func expire(_ s: State, now: ContinuousClock.Instant) -> ContinuousClock.Instant?? {
        if s.stopping { return nil }
        let nowStamp = stamp(now)
        let limitNanos = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        var next: Int64?
        for watch in s.watches.values {
            let since = watch.since.load(ordering: .sequentiallyConsistent)
            guard since != 0 else { continue }
            if nowStamp - since >= limitNanos {
                // Only if the head is still the one judged late: a head completed meanwhile has
                // stored 0, and its connection is left alone.
                if watch.since.compareExchange(expected: since, desired: 0, ordering: .sequentiallyConsistent).exchanged {
                    _ = shutdown(watch.fd, Int32(SHUT_RDWR))
                }
            } else {
                next = min(next ?? since + limitNanos, since + limitNanos)
            }
        }
        return .some(next.map { origin + .nanoseconds($0 - 1) })
    }

    /// Foundation's `Thread.name` does not reach the kernel on Linux, and `pthread_setname_np` is
    /// not imported into Swift; the kernel takes the name from `/proc/thread-self/comm` as well.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = name.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

}
