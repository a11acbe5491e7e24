import Foundation
import CorpusFormat
import CorpusSync
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock(2)` on the mirror folder itself, so two `corpusd mirror` runs never
/// interleave writes to one tree. Locking the folder (not a file in it) leaves the tree exactly
/// as it was when a run is refused. Released on `release()`, deinit, or process exit.
final class MirrorLock {
    private var fd: Int32

    /// The corresponding C calls are `open(O_DIRECTORY)` and `flock(LOCK_EX | LOCK_NB)`.
    init(directory: String) throws {
        let fd = SystemCall.retrying { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw SyncError.io(operation: "open", path: directory, errno: errno) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK { throw SyncError.lockHeld(path: directory) }
            throw SyncError.io(operation: "flock", path: directory, errno: code)
        }
        self.fd = fd
    }

    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}

@available(*, unavailable) extension MirrorLock: Sendable {}
