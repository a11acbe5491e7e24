import Synchronization

/// The named steps of install, sync, remove and gc (docs/client.md lists them), reported to one
/// observer the process may install: a crash-safety harness stops the process at an exact step
/// instead of racing a timer, and a tool can trace where an install spent its time.
///
/// The library itself never acts on a step: it holds no environment switch and no kill, so an
/// app that links it cannot be stopped by a stray variable. The `corpus` executable installs its
/// test harness only in debug builds (`Sources/corpus/CrashTestHarness.swift`).
public enum LifecycleStep {
    private static let observer = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Installs the process-wide observer (replacing any earlier one); it runs synchronously on
    /// the thread that reaches the step, so it must be quick.
    public static func observe(_ body: @escaping @Sendable (String) -> Void) {
        observer.withLock { $0 = body }
    }

    static func reached(_ step: String) {
        observer.withLock { $0 }?(step)
    }
}
