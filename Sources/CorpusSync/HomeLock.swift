import Foundation
import CorpusFormat

extension HomeLayout {
    /// Takes `locks/<name>.lock` (creating `locks/` when missing) as the client does: a lock
    /// another process keeps past `wait` is `SyncError.lockHeld`, any other failure `SyncError.io`.
    func lock(_ name: String, mode: FileLock.Mode = .exclusive, wait: FileLock.Wait) throws -> FileLock {
        try io { try FileIO.createDirectory(locks) }
        do {
            return try FileLock(file: lockFile(name), mode: mode, wait: wait)
        } catch {
            throw SyncError(error)
        }
    }
}

extension SyncError {
    /// A lock not taken, in the client's terms (`lockHeld` is exit 7 with its own code in the CLI).
    /// Public for the mirror, whose folder lock reports the same way.
    public init(_ error: FileLockError) {
        switch error {
        case let .held(path): self = .lockHeld(path: path)
        case let .io(call, path, code): self = .io(operation: call, path: path, errno: code)
        }
    }
}

/// The refusal the client's own lock type threw before the lock moved to `CorpusFormat`
/// (`FileLock`); the library now reports a held lock as `SyncError.lockHeld`. Kept while the
/// CLI still maps it.
public enum SyncLockError: Error, Equatable, Sendable, CustomStringConvertible {
    case held(path: String)

    public var description: String {
        switch self {
        case let .held(path): return "another corpus process holds the lock \(path)"
        }
    }
}
