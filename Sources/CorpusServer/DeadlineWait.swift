import Foundation

extension DispatchSemaphore {
    /// Waits for a signal, or until `deadline` passes when there is one. A thread that must wake
    /// the moment something happens, or at a deadline, sleeps here instead of looking every few
    /// milliseconds; the waker signals once per change the sleeper has said it waits for, so no
    /// signal is lost between the sleeper's last look and its sleep (the semaphore counts it).
    func wait(until deadline: ContinuousClock.Instant?) {
        guard let deadline else { return wait() }
        let remaining = max(.zero, deadline - .now).components
        let nanoseconds = Int(remaining.seconds) * 1_000_000_000 + Int(remaining.attoseconds / 1_000_000_000)
        _ = wait(timeout: .now() + .nanoseconds(nanoseconds))
    }
}
