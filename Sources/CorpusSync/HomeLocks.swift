import Foundation
import CorpusFormat

/// The home folder's locks, all `flock(2)` locks on files in `locks/` (docs/client.md), so a
/// killed holder never leaves one stale:
///
/// - `corpus-<remote>.<id>`: held by whoever installs, updates, removes or collects one corpus,
///   from before its download to the swap of `current`;
/// - `downloads`: held shared by every run that downloads, and exclusively by `gc` while it
///   deletes partials, so no live partial is deleted;
/// - `import-limit`: held while a new corpus is counted against the import limit and linked;
/// - `log-proofs-<remote>`: held while kept log proofs and their notes are written or pruned;
/// - `embedder-<id>`: held while a model is installed or collected, and by an install until the
///   corpus that needs the model is in place.
struct HomeLocks: Sendable {
    let home: HomeLayout

    func corpus(remote: String, id: String, wait: FileLock.Wait) throws -> FileLock {
        try take("corpus-\(remote).\(id)", wait: wait)
    }

    /// `mode: .shared` for a run that downloads; `.exclusive` for `gc`, which then owns `downloads/`.
    func downloads(_ mode: FileLock.Mode, wait: FileLock.Wait) throws -> FileLock {
        try take("downloads", mode: mode, wait: wait)
    }

    func importLimit(wait: FileLock.Wait) throws -> FileLock {
        try take("import-limit", wait: wait)
    }

    /// Held while a remote's kept inclusion proofs and the notes they name are written or pruned,
    /// so no note is removed between being written and named.
    func logProofs(remote: String, wait: FileLock.Wait) throws -> FileLock {
        try take("log-proofs-\(remote)", wait: wait)
    }

    func embedder(id: String, wait: FileLock.Wait) throws -> FileLock {
        try take("embedder-\(id)", wait: wait)
    }

    /// Takes `locks/<name>.lock` (creating `locks/` when missing): a lock another process keeps
    /// past `wait` is `SyncError.lockHeld`, any other failure `SyncError.io`.
    private func take(_ name: String, mode: FileLock.Mode = .exclusive, wait: FileLock.Wait) throws -> FileLock {
        try io { try FileIO.createDirectory(home.locks) }
        do {
            return try FileLock(file: home.lockFile(name), mode: mode, wait: wait)
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
