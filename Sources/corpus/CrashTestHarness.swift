#if DEBUG
import CorpusSync
import Foundation
import Synchronization

/// Test builds only: `CORPUS_TEST_KILL_AT=<step>` (or `<step>#<n>`, the n-th time the step is
/// reached) makes this process send itself SIGKILL at that lifecycle step, which is exactly what
/// a crash or an out-of-memory kill does. Release builds do not contain this file's code, so no
/// environment variable can stop a shipped `corpus` (docs/client.md).
enum CrashTestHarness {
    private static let seen = Mutex(0)

    static func installIfArmed() {
        guard let spec = ProcessInfo.processInfo.environment["CORPUS_TEST_KILL_AT"], !spec.isEmpty else { return }
        let parts = spec.split(separator: "#", maxSplits: 1).map(String.init)
        let step = parts[0], occurrence = parts.count == 2 ? max(1, Int(parts[1]) ?? 1) : 1
        LifecycleStep.observe { reached in
            guard reached == step else { return }
            let n = seen.withLock { count -> Int in
                count += 1
                return count
            }
            if n == occurrence { kill(getpid(), SIGKILL) }
        }
    }
}
#endif
