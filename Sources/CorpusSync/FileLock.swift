import Foundation
import CorpusFormat
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock on a file in HOME/locks (`flock(2)`), released when the value is released
/// or the process dies — so a lock held by a killed process is never stale.
public final class FileLock {
    private let fd: Int32
    public let path: String

    public enum Wait: Sendable {
        case no
        case upTo(seconds: Double)
    }

    /// Exclusive: one holder. Shared: any number of shared holders, but no exclusive one.
    public enum Mode: Sendable {
        case exclusive, shared
    }

    /// Takes the lock; throws `SyncLockError.held` when another process holds it in a conflicting
    /// mode and it does not come free in time.
    public init(path: String, mode: Mode = .exclusive, wait: Wait = .upTo(seconds: 30)) throws {
        let fd = SystemCall.retrying { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw FormatError.io(operation: "open lock", path: path, errno: errno) }
        let deadline: Date
        switch wait {
        case .no: deadline = .distantPast
        case let .upTo(seconds): deadline = Date().addingTimeInterval(seconds)
        }
        while flock(fd, (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            let e = errno
            if e == EINTR { continue }
            guard e == EWOULDBLOCK, Date() < deadline else {
                close(fd)
                if e == EWOULDBLOCK { throw SyncLockError.held(path: path) }
                throw FormatError.io(operation: "flock", path: path, errno: e)
            }
            usleep(50_000)
        }
        self.fd = fd
        self.path = path
        // Record the holder for people looking at a stuck lock; the kernel, not this text, decides.
        // (Shared holders leave it alone: several of them would overwrite each other.)
        if mode == .exclusive {
            let note = "\(getpid())\n"
            _ = ftruncate(fd, 0)
            _ = note.withCString { write(fd, $0, strlen($0)) }
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

@available(*, unavailable)
extension FileLock: Sendable {}

public enum SyncLockError: Error, Equatable, Sendable, CustomStringConvertible {
    case held(path: String)

    public var description: String {
        switch self {
        case let .held(path): return "another corpus process holds the lock \(path)"
        }
    }
}
