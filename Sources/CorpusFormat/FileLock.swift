import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock(2)` lock on a lock file or on a folder, held until `release()` or `deinit`,
/// and by the kernel only as long as the process lives, so a lock held by a killed process is
/// never stale. The one lock of the package: the client's locks in `HOME/locks`, the publisher's
/// tree lock and the mirror's folder lock.
///
/// The corresponding C functions are `open` (`O_CREAT` for a lock file, `O_DIRECTORY` for a
/// folder), `flock` (`LOCK_NB`, polled until the wait runs out) and `close`; every call retries
/// when a signal interrupts it (`EINTR`).
public final class FileLock {
    /// Exclusive: one holder. Shared: any number of shared holders, but no exclusive one.
    public enum Mode: Sendable {
        case exclusive, shared
    }

    /// How long to wait for a lock another process holds.
    public enum Wait: Sendable {
        case no
        case upTo(seconds: Double)
    }

    public let path: String
    private var fd: Int32

    /// Locks the file at `path`, creating it (mode 0644) when missing. An exclusive holder writes
    /// its pid into the file for people looking at a stuck lock; the kernel, not this text, decides.
    /// - Throws: `FileLockError.held` when another holder keeps it past `wait`, `.io` otherwise.
    public convenience init(file path: String, mode: Mode = .exclusive, wait: Wait = .no) throws(FileLockError) {
        try self.init(path: path, flags: O_RDWR | O_CREAT | O_CLOEXEC, mode: mode, wait: wait)
        // Shared holders leave the note alone: several of them would overwrite each other.
        if mode == .exclusive {
            let note = "\(getpid())\n"
            _ = SystemCall.retrying { ftruncate(fd, 0) }
            _ = note.withCString { text in SystemCall.retrying { write(fd, text, strlen(text)) } }
        }
    }

    /// Locks the folder at `path` itself, which must exist: nothing inside it is created or
    /// changed, so a refused run leaves the folder exactly as it was.
    /// - Throws: `FileLockError.held` when another holder keeps it past `wait`, `.io` otherwise.
    public convenience init(directory path: String, mode: Mode = .exclusive, wait: Wait = .no) throws(FileLockError) {
        try self.init(path: path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: mode, wait: wait)
    }

    private init(path: String, flags: Int32, mode: Mode, wait: Wait) throws(FileLockError) {
        let fd = SystemCall.retrying { open(path, flags, 0o644) }
        guard fd >= 0 else { throw .io(call: "open", path: path, errno: errno) }
        let deadline: Date
        switch wait {
        case .no: deadline = .distantPast
        case let .upTo(seconds): deadline = Date().addingTimeInterval(seconds)
        }
        let operation = (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        while SystemCall.retrying({ flock(fd, operation) }) != 0 {
            let code = errno
            guard code == EWOULDBLOCK, Date() < deadline else {
                close(fd)
                throw code == EWOULDBLOCK ? .held(path: path) : .io(call: "flock", path: path, errno: code)
            }
            // Polled rather than a blocking flock: a blocking call cannot be given a deadline.
            usleep(50_000)
        }
        self.fd = fd
        self.path = path
    }

    /// Releases the lock now (`flock(LOCK_UN)`, then `close`). Unlocking before closing frees it
    /// even while a child forked meanwhile still holds a copy of the descriptor (until it execs).
    public func release() {
        guard fd >= 0 else { return }
        _ = SystemCall.retrying { flock(fd, LOCK_UN) }
        close(fd)
        fd = -1
    }

    deinit { release() }
}

@available(*, unavailable)
extension FileLock: Sendable {}

/// Why a `FileLock` was not taken.
public enum FileLockError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another holder (this process or another) keeps the lock in a conflicting mode.
    case held(path: String)
    /// A system call (`open` or `flock`) failed with `errno`.
    case io(call: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case let .held(path): return "\(path) is locked by another process"
        case let .io(call, path, code): return "\(call) \(path): \(String(cString: strerror(code)))"
        }
    }
}
