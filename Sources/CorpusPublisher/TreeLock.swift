import Foundation
import CorpusFormat

/// The exclusive lock on `PUBLIC_DIR/.publish.lock` (`FileLock`), so two publishes never
/// interleave writes to one tree. Released explicitly or when the process exits.
enum TreeLock {
    /// A few seconds of patience for a publish of the same tree that is just ending. (While the
    /// lock was released by `close` alone, a child forked meanwhile kept it until it exec'd;
    /// `FileLock.release` unlocks first, which closes that window.)
    static let wait = FileLock.Wait.upTo(seconds: 5)

    /// Takes the tree's lock; a publish running on the tree is reported as the I/O failure it was
    /// before the lock moved to `CorpusFormat` (the CLI maps it to exit 7).
    static func take(tree: String) throws -> FileLock {
        let path = "\(tree)/.publish.lock"
        do {
            return try FileLock(file: path, wait: wait)
        } catch {
            switch error {
            case .held:
                throw FormatError.io(operation: "lock (another publish is running on this tree)", path: path, errno: EWOULDBLOCK)
            case let .io(call, path, code):
                throw FormatError.io(operation: call, path: path, errno: code)
            }
        }
    }
}
