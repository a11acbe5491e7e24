import Foundation
import CorpusFormat

/// An exclusive `flock(2)` on `PUBLIC_DIR/.publish.lock`, so two publishes never interleave
/// writes to one tree. Released explicitly or when the process exits.
final class TreeLock {
    private var fd: Int32

    init(tree: String) throws {
        let path = "\(tree)/.publish.lock"
        fd = SystemCall.retrying { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw FormatError.io(operation: "open", path: path, errno: errno) }
        // A few seconds of patience: a process forked elsewhere in this one holds a copy of the
        // descriptor (and so the lock) until it execs, and a publish that just ended may still be
        // in that window.
        let deadline = Date().addingTimeInterval(5)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK, Date() < deadline {
                usleep(50_000)
                continue
            }
            close(fd)
            throw FormatError.io(operation: "lock (another publish is running on this tree)", path: path, errno: code)
        }
    }

    func release() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}

@available(*, unavailable) extension TreeLock: Sendable {}
