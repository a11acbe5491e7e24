import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Retries system calls interrupted by signals: the one EINTR loop of the package.
public enum SystemCall {
    /// Calls `call` again while it fails with `EINTR`; returns its first other result, with
    /// `errno` as that call left it.
    ///
    /// Inlinable: it wraps the `read`, `pread` and `write` of the server's request path and the
    /// hashing loops, where a generic call through a closure context would cost more than the call.
    @inlinable
    public static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let r = call()
            if r < 0 && errno == EINTR { continue }
            return r
        }
    }
}
