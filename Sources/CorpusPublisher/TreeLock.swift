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
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
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
