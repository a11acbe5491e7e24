import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Named steps of install, sync, remove and gc at which a crash-safety test can make the process
/// kill itself with SIGKILL: `CORPUS_TEST_KILL_AT=<step>` (or `<step>#<n>` for the n-th time the
/// step is reached). Test-only (docs/client.md): a timer cannot land on a chosen step reliably,
/// and a SIGKILL is exactly what a crash or an out-of-memory kill does to the process.
enum KillPoint {
    /// The armed step and the occurrence to die at, read once from the environment.
    private static let armed: (step: String, occurrence: Int)? = {
        guard let spec = ProcessInfo.processInfo.environment["CORPUS_TEST_KILL_AT"], !spec.isEmpty else { return nil }
        let parts = spec.split(separator: "#", maxSplits: 1).map(String.init)
        return (parts[0], parts.count == 2 ? max(1, Int(parts[1]) ?? 1) : 1)
    }()
    private static let seen = Mutex(0)

    /// Dies here when this step is the armed one (and this is the armed occurrence of it).
    static func reached(_ step: String) {
        guard let armed, armed.step == step else { return }
        let n = seen.withLock { count -> Int in
            count += 1
            return count
        }
        if n == armed.occurrence { kill(getpid(), SIGKILL) }
    }
}
