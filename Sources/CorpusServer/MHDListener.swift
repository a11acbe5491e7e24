internal import CMicroHTTPD
import Foundation

/// One listening socket and the libmicrohttpd daemon serving it: epoll worker threads, the
/// connection limits and timeouts of a `ServerConfiguration`, and a `ServerCore` behind the C
/// callbacks.
///
/// The listen socket is created here and handed to libmicrohttpd (`.LISTEN_SOCKET`), so port 0
/// works and `port` tells which one was bound. `quiesce` stops accepting (`MHD_quiesce_daemon`,
/// then `shutdown` so the kernel refuses new connections instead of queueing them); `stop` shuts
/// the daemon down (`MHD_stop_daemon`) and closes the socket.
final class MHDListener {
    let port: UInt16
    private var daemon: OpaquePointer?
    private let listenFD: Int32
    /// Retained for as long as the daemon may call back into it.
    private let core: ServerCore

    init(host: String, port: UInt16, threads: Int, core: ServerCore, config: ServerConfiguration) throws(ServerError) {
        self.core = core
        (listenFD, self.port) = try Self.listen(host: host, port: port)
        let context = Unmanaged.passUnretained(core).toOpaque()
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(listenFD), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: max(1, config.connectionLimit), ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: max(1, config.perIPConnectionLimit), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: max(1, config.connectionTimeout), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: max(4096, config.connectionMemoryLimit), ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
            MHD_OptionItem(option: .URI_LOG_CALLBACK, value: unsafeBitCast(Callbacks.uriLog, to: Int.self), ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(Callbacks.completed, to: Int.self), ptr_value: context),
            MHD_OptionItem(option: .NOTIFY_CONNECTION, value: unsafeBitCast(Callbacks.connection, to: Int.self), ptr_value: context),
        ]
        if threads > 1 {
            options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: threads, ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        // ITC (an eventfd) is what lets MHD_quiesce_daemon wake the worker threads.
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue
        guard let d = corpus_mhd_start(flags, Callbacks.access, context, options) else {
            close(listenFD)
            throw .cannotListen(address: "\(host):\(self.port)", reason: "libmicrohttpd refused to start (epoll or thread support missing?)")
        }
        daemon = d
    }

    /// Stops accepting new connections; those open are served on.
    func quiesce() {
        guard let d = daemon else { return }
        // The returned descriptor is our own listen socket; it may be closed only after
        // MHD_stop_daemon, but shutting it down now makes the kernel refuse new connections.
        _ = MHD_quiesce_daemon(d)
        _ = shutdown(listenFD, Int32(SHUT_RDWR))
    }

    /// Closes every connection and the listen socket.
    func stop() {
        guard let d = daemon else { return }
        daemon = nil
        MHD_stop_daemon(d)
        close(listenFD)
    }

    deinit { stop() }

    private static func listen(host: String, port: UInt16) throws(ServerError) -> (Int32, UInt16) {
        let address = "\(host):\(port)"
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else { throw .invalidListenAddress(address) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(address: address, reason: String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0, Glibc.listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotListen(address: address, reason: reason)
        }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }
}

@available(*, unavailable) extension MHDListener: Sendable {}
