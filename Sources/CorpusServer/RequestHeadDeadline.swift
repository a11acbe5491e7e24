internal import CMicroHTTPD
import Foundation
import Synchronization

/// A bound on the time a whole request head may take to arrive, which libmicrohttpd lacks: its
/// `MHD_OPTION_CONNECTION_TIMEOUT` counts inactivity only, so a client sending one header line
/// every few seconds holds a connection (and its memory) forever.
///
/// The clock for a head starts when the connection opens and again when a response has been
/// sent (keep-alive), and stops when the head is complete. A watcher thread looks a few times per
/// bound; a connection past its deadline is shut down (`shutdown(2)`, which libmicrohttpd notices
/// as the peer going away and answers by closing it). The descriptor is never closed here, and it
/// is shut down only while libmicrohttpd has not reported the connection closed, both under one
/// lock, so a descriptor number reused by a newer connection is never touched.
final class RequestHeadDeadline: Sendable {
    private struct Entry {
        let fd: Int32
        /// When the current head started; nil while a request is being answered.
        var since: ContinuousClock.Instant?
    }

    private let limit: Duration
    private let entries = Mutex([UInt: Entry]())
    /// Signalled by `stop`: ends the watcher's wait at once instead of at the next tick.
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    /// `seconds` 0 turns the bound off.
    init(seconds: Int) {
        limit = .seconds(max(0, seconds))
    }

    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard limit > .zero, fd >= 0 else { return }
        entries.withLock { $0[Self.key(connection)] = Entry(fd: fd, since: .now) }
    }

    func headReceived(_ connection: OpaquePointer) {
        entries.withLock { $0[Self.key(connection)]?.since = nil }
    }

    func responseFinished(_ connection: OpaquePointer) {
        entries.withLock { $0[Self.key(connection)]?.since = .now }
    }

    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// Starts the watcher thread (once).
    func start() {
        guard limit > .zero, !running.exchange(true, ordering: .relaxed) else { return }
        // Look four times per bound, at most every 250 ms: a head is cut off within 1.25 bounds.
        let tick = min(limit / 4, .milliseconds(250))
        let nanoseconds = Int(tick.components.seconds) * 1_000_000_000 + Int(tick.components.attoseconds / 1_000_000_000)
        let thread = Thread { [self] in
            while wake.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                expire(now: .now)
            }
            finished.signal()
        }
        thread.name = "corpusd-head-deadline"
        thread.start()
    }

    /// Stops the watcher and waits for it to exit.
    func stop() {
        guard running.load(ordering: .relaxed), !stopped.exchange(true, ordering: .relaxed) else { return }
        wake.signal()
        finished.wait()
    }

    private func expire(now: ContinuousClock.Instant) {
        entries.withLock { entries in
            for (key, entry) in entries {
                guard let since = entry.since, now - since > limit else { continue }
                _ = shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[key]?.since = nil
            }
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }
}
