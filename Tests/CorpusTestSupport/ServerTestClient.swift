import Foundation

/// A response read off a raw socket.
public struct RawHTTPResponse: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: Data

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

public enum RawHTTPError: Error, CustomStringConvertible {
    case connect(Int32)
    case closedBeforeResponse
    case timeout
    case malformed(String)

    public var description: String {
        switch self {
        case let .connect(e): return "connect failed: \(String(cString: strerror(e)))"
        case .closedBeforeResponse: return "the server closed the connection without a response"
        case .timeout: return "timed out waiting for the server"
        case let .malformed(s): return "malformed response: \(s)"
        }
    }
}

/// One TCP connection to a loopback server, for requests no well-behaved client would send
/// (two Content-Lengths, bodies on GET, raw `..`, NUL bytes, half-sent headers) and for holding
/// connections open. Reads time out (SO_RCVTIMEO) so a test can never hang on a silent server.
public final class RawConnection {
    public let fd: Int32
    private var buffer = Data()

    public init(port: UInt16, timeout: TimeInterval = 10) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard r == 0 else {
            // Closed here, before `self.fd` is set: a class whose initializer throws after every
            // stored property is set runs its deinit, which would close the number a second time,
            // and by then another thread (an in-process server) may own it.
            let e = errno
            Glibc.close(fd)
            throw RawHTTPError.connect(e)
        }
        self.fd = fd
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { Glibc.close(fd) }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Reads more bytes into the buffer; false on EOF or error, throws on timeout.
    @discardableResult
    private func fill(max: Int = 1 << 20) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: max)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw RawHTTPError.timeout }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response. `bodyless` for HEAD requests (and 1xx/204/304, detected anyway).
    /// `maxBody` stops reading the body early (the rest stays unread in the socket).
    public func readResponse(bodyless: Bool = false, maxBody: Int? = nil) throws -> RawHTTPResponse {
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while true {
            headEnd = buffer.range(of: separator)
            if headEnd != nil { break }
            guard try fill() else { throw buffer.isEmpty ? RawHTTPError.closedBeforeResponse : RawHTTPError.malformed("EOF in headers") }
        }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd!.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError.malformed(head) }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        buffer = Data(buffer[headEnd!.upperBound...])
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let expected = (bodyless || status == 304 || status == 204 || status < 200) ? 0 : min(length, maxBody ?? Int.max)
        while buffer.count < expected {
            guard try fill() else { break }
        }
        let body = Data(buffer.prefix(expected))
        buffer = Data(buffer.dropFirst(expected))
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }

    /// Reads exactly `count` more bytes (of a body being streamed), or fewer at EOF.
    public func read(_ count: Int) throws -> Data {
        while buffer.count < count {
            guard try fill(max: min(1 << 20, count - buffer.count)) else { break }
        }
        let out = Data(buffer.prefix(count))
        buffer = Data(buffer.dropFirst(count))
        return out
    }

    /// True when the peer closes the connection (EOF or reset) before the read timeout.
    public func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
            } catch {
                return false
            }
        }
    }
}

@available(*, unavailable) extension RawConnection: Sendable {}

/// One-shot helpers over `RawConnection`.
public enum ServerTestClient {
    /// Sends one request built from method, target and headers, and reads the response.
    public static func request(port: UInt16, _ method: String = "GET", _ target: String, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        let c = try RawConnection(port: port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { text += "\(k): \(v)\r\n" }
        c.send(text + "\r\n")
        return try c.readResponse(bodyless: method == "HEAD")
    }

    /// Sends raw bytes and reads one response.
    public static func raw(port: UInt16, _ bytes: [UInt8], bodyless: Bool = false) throws -> RawHTTPResponse {
        let c = try RawConnection(port: port)
        c.send(bytes)
        return try c.readResponse(bodyless: bodyless)
    }
}
