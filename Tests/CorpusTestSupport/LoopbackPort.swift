import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks, not yet listening, and that port:
/// where `freeLoopbackPort` and `LoopbackListener` both start.
func bindLoopbackSocket() throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard bound else {
        let code = errno
        close(fd)
        throw POSIXError(.init(rawValue: code) ?? .EIO)
    }
    return (fd, UInt16(bigEndian: addr.sin_port))
}

/// A free TCP port on 127.0.0.1 (bound, read, closed: a small race, acceptable in tests and in
/// the benchmarks, which use it too).
public func freeLoopbackPort() -> UInt16 {
    do {
        let (fd, port) = try bindLoopbackSocket()
        close(fd)
        return port
    } catch {
        // No loopback port at all: nothing a test could run against.
        preconditionFailure("cannot bind a port on 127.0.0.1: \(error)")
    }
}

/// A port on 127.0.0.1 where a connection is always refused: bound, never listening, and held
/// until this is released, so no other test's server can take it while a test waits out retries
/// against it (a port from `freeLoopbackPort` can be taken meanwhile, and then it answers).
public final class RefusingLoopbackPort: @unchecked Sendable {
    public let port: UInt16
    private let fd: Int32

    public init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        // No SO_REUSEADDR: another socket cannot bind this port while it is held.
        let bound = fd >= 0 && withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        precondition(bound, "cannot bind a port on 127.0.0.1: errno \(errno)")
        self.fd = fd
        self.port = UInt16(bigEndian: addr.sin_port)
    }

    deinit { close(fd) }
}
