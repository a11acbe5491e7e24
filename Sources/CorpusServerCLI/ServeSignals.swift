import Foundation
import CorpusFormat

/// SIGTERM, SIGINT and SIGHUP, turned into awaitable events with the self-pipe trick: the handler
/// (which may run on any thread, libmicrohttpd's included) only writes the signal number to a
/// pipe, and a plain thread blocked on the pipe resumes the waiting task. Unlike a dispatch signal
/// source, this does not depend on which threads happen to block the signal. SIGHUP's default
/// action would end the process mid-download; caught, it means "re-read the tree".
final class ServeSignals: @unchecked Sendable {
    nonisolated(unsafe) private static var writeFD: Int32 = -1
    private let readFD: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FormatError.io(operation: "pipe", path: "-", errno: errno) }
        readFD = fds[0]
        Self.writeFD = fds[1]
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(ServeSignals.writeFD, &byte, 1)
            }
        }
    }

    /// Suspends until the next of the three signals arrives; returns its name.
    func next() async -> String {
        await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            let fd = readFD
            Thread.detachNewThread {
                var byte: UInt8 = 0
                _ = SystemCall.retrying { read(fd, &byte, 1) }
                switch Int32(byte) {
                case SIGINT: done.resume(returning: "SIGINT")
                case SIGHUP: done.resume(returning: "SIGHUP")
                default: done.resume(returning: "SIGTERM")
                }
            }
        }
    }
}
