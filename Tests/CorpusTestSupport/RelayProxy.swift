import Foundation

/// A TCP relay on loopback in front of a real server (the SeaweedFS S3 gateway), which
/// misbehaves on purpose at a point a test names:
///
/// - `cutAtRequest: N`: the N-th request head (counted across connections, 1-based) is never
///   forwarded; that connection and every later one are closed at once, as if the network to the
///   object store died there (a publish "killed" before its N-th request).
/// - `holdAfterResponseBytes: B`: after B bytes of responses have gone to clients, stop relaying
///   (the test does something, e.g. kills a volume server) until `release()`.
///
/// It records every request line (`PUT /bucket/key`) in order. Only framing it must read is
/// parsed: request heads and their `Content-Length` bodies; responses are relayed as bytes.
public final class RelayProxy: @unchecked Sendable {
    public var port: UInt16 { listener.port }
    public var url: String { "http://127.0.0.1:\(port)" }
    private let upstreamPort: UInt16
    private var listener: LoopbackListener!
    private let lock = NSLock()
    private var lines: [String] = []
    private var cutAt: Int?
    private var cut = false
    private var holdAfter: Int64?
    private var responseBytes: Int64 = 0
    private let held = DispatchSemaphore(value: 0)
    private let releaseSignal = DispatchSemaphore(value: 0)

    public init(upstreamPort: UInt16, cutAtRequest: Int? = nil, holdAfterResponseBytes: Int64? = nil) throws {
        self.upstreamPort = upstreamPort
        cutAt = cutAtRequest
        holdAfter = holdAfterResponseBytes
        listener = try LoopbackListener { [weak self] client in
            guard let self else { _ = close(client); return }
            relay(client)
        }
    }

    deinit { stop() }

    /// Every request line relayed (or cut), in arrival order.
    public var requestLines: [String] { lock.withLock { lines } }
    /// True once the cut happened.
    public var didCut: Bool { lock.withLock { cut } }

    /// Waits (at most `timeout`) until the hold point is reached.
    public func waitUntilHeld(timeout: TimeInterval) -> Bool { held.wait(timeout: .now() + timeout) == .success }
    /// Resumes relaying after a hold.
    public func release() { releaseSignal.signal() }

    public func stop() {
        guard listener.stop() else { return }
        // A relay held at its hold point wakes, sees the stop, and ends.
        releaseSignal.signal()
    }

    private var isStopped: Bool { listener.isStopped }

    /// One accepted connection: relayed to the upstream in both directions, each on a thread.
    private func relay(_ client: Int32) {
        if lock.withLock({ cut }) { close(client); return }
        let upstream = connectUpstream()
        guard upstream >= 0 else { close(client); return }
        let done = DispatchGroup()
        done.enter()
        Thread { [self] in relayResponses(from: upstream, to: client); shutdown(client, Int32(SHUT_RDWR)); done.leave() }.start()
        Thread { [self] in
            relayRequests(from: client, to: upstream)
            shutdown(upstream, Int32(SHUT_RDWR))
            shutdown(client, Int32(SHUT_RDWR))
            done.wait()
            close(client)
            close(upstream)
        }.start()
    }

    private func connectUpstream() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = upstreamPort.bigEndian
        let r = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if r != 0 { close(fd); return -1 }
        return fd
    }

    /// Client to upstream, one request at a time: head, then `Content-Length` body bytes.
    private func relayRequests(from client: Int32, to upstream: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            // Read until a whole head is in the buffer.
            var headEnd = Self.find(buffer, Array("\r\n\r\n".utf8))
            while headEnd == nil {
                let n = read(client, &chunk, chunk.count)
                if n <= 0 { return }
                buffer += chunk[..<n]
                headEnd = Self.find(buffer, Array("\r\n\r\n".utf8))
            }
            let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
            let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
            let parts = requestLine.split(separator: " ")
            let line = parts.count >= 2 ? "\(parts[0]) \(parts[1].split(separator: "?").first ?? "")" : requestLine
            let refuse = lock.withLock { () -> Bool in
                lines.append(line)
                if let cutAt, lines.count >= cutAt { cut = true }
                return cut
            }
            if refuse { return }
            var length = 0
            for field in head.split(separator: "\r\n").dropFirst() where field.lowercased().hasPrefix("content-length:") {
                length = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            let total = headEnd! + 4 + length
            if buffer.count >= total {
                if !sendAll(upstream, Array(buffer[..<total])) { return }
                buffer.removeFirst(total)
                continue
            }
            if !sendAll(upstream, buffer) { return }
            var remaining = total - buffer.count
            buffer.removeAll(keepingCapacity: true)
            while remaining > 0 {
                let n = read(client, &chunk, min(chunk.count, remaining))
                if n <= 0 { return }
                if !sendAll(upstream, Array(chunk[..<n])) { return }
                remaining -= n
            }
        }
    }

    private func relayResponses(from upstream: Int32, to client: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let allowed = lock.withLock { () -> Int in
                guard let holdAfter else { return chunk.count }
                return Int(max(0, min(Int64(chunk.count), holdAfter - responseBytes)))
            }
            if allowed == 0 {
                held.signal()
                releaseSignal.wait()
                lock.withLock { holdAfter = nil }
                if isStopped { return }
                continue
            }
            let n = read(upstream, &chunk, allowed)
            if n <= 0 { return }
            lock.withLock { responseBytes += Int64(n) }
            if !sendAll(client, Array(chunk[..<n])) { return }
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    static func find(_ hay: [UInt8], _ needle: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }
}
