import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 (an ephemeral port) whose accept loop runs on a thread of
/// its own and hands each connection to `onConnection` (on that thread; the handler starts its
/// own) until `stop()`: what the test servers that misbehave on purpose share.
public final class LoopbackListener: @unchecked Sendable {
    // @unchecked: `stopped` is guarded by `lock`; the descriptor is closed once, after the loop ended.
    public let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var stopped = false
    private let acceptDone = DispatchSemaphore(value: 0)

    public init(onConnection: @escaping @Sendable (Int32) -> Void) throws {
        let (fd, port) = try bindLoopbackSocket()
        guard listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.fd = fd
        self.port = port
        Thread { [self] in acceptLoop(onConnection) }.start()
    }

    deinit { stop() }

    /// True once `stop` was called: connection handlers check it to give up waiting.
    public var isStopped: Bool { lock.withLock { stopped } }

    /// Stops accepting and closes the socket; returns false when it had been stopped already.
    @discardableResult
    public func stop() -> Bool {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return false }
        acceptDone.wait()
        close(fd)
        return true
    }

    private func acceptLoop(_ onConnection: (Int32) -> Void) {
        defer { acceptDone.signal() }
        while !isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            onConnection(client)
        }
    }
}
