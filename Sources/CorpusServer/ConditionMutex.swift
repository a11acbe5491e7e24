import Foundation

/// State behind a mutex, with a condition variable to sleep on until another thread changes it:
/// what `Synchronization.Mutex` cannot offer, for waits that must end the moment something
/// happens or a deadline passes, and not at the next tick of a sleep loop.
///
/// The condition variable runs on `CLOCK_MONOTONIC` (`pthread_condattr_setclock`), so a wall-clock
/// change neither shortens nor stretches a wait. The pthread objects live in memory of their own
/// that never moves, as pthreads requires.
final class ConditionMutex<State: Sendable>: @unchecked Sendable {
    // @unchecked: `state` is only touched with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    /// What a `wait` step decides, with the lock held.
    enum Step<Result> {
        case done(Result)
        /// Sleep until woken or until the instant; nil sleeps until woken.
        case sleep(until: ContinuousClock.Instant?)
    }

    init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Wakes every thread sleeping in `wait`, which then runs its step again.
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `step` with the lock held, again each time the thread is woken (by `broadcast`, at the
    /// instant the step named, or spuriously), until it returns `.done`. The lock is released while
    /// the thread sleeps.
    func wait<R>(_ step: (inout State) -> Step<R>) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            switch step(&state) {
            case let .done(result):
                return result
            case .sleep(until: nil):
                pthread_cond_wait(condition, mutex)
            case let .sleep(until: deadline?):
                var until = Self.monotonic(deadline)
                pthread_cond_timedwait(condition, mutex, &until)
            }
        }
    }

    /// `instant` on `CLOCK_MONOTONIC`: now on that clock plus what remains until it.
    private static func monotonic(_ instant: ContinuousClock.Instant) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let remaining = max(.zero, instant - .now).components
        let nanoseconds = Int(now.tv_nsec) + Int(remaining.attoseconds / 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + Int(remaining.seconds) + nanoseconds / 1_000_000_000,
                        tv_nsec: nanoseconds % 1_000_000_000)
    }
}
