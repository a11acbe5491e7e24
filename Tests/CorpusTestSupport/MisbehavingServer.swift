import Foundation
import CorpusFormat
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that serves files from a folder and misbehaves on
/// request, for transport tests against the real client (TUF slow retrieval, apt partial files,
/// mirror.fail, redirect token leaks). One request per connection (`Connection: close`), unless
/// made with `keepAlive`: then a connection is served until the client closes it, and
/// `connectionCount` tells whether the client reused one.
///
/// It records every request with its headers (to assert whether `Authorization` went) and asks
/// a `behavior` closure how to answer each one.
public final class MisbehavingServer: @unchecked Sendable {
    // @unchecked: mutable state (`log`, `behavior`, `accepted`) is guarded by `lock`; `listener` is set once, in init.

    public struct Request: Sendable {
        /// 0 for the first request this server received.
        public let index: Int
        public let method: String
        /// The path without the query, percent-decoded.
        public let path: String
        /// Header names in lower case.
        public let headers: [String: String]
    }

    public enum Behavior: Sendable {
        /// Serve the file (ranges, If-Range, If-None-Match honoured).
        case normal
        /// Serve these bytes as if they were the file (tampered content); ranges honoured.
        case content(Data)
        /// Answer with this status and an empty body.
        case status(Int)
        /// Answer with this status and a small body, as real servers do (`404 not found`).
        case statusWithBody(Int, Data)
        /// Send the headers and `bytes` body bytes, then go silent until the client leaves.
        case stallAfter(bytes: Int)
        /// Send the body `bytes` at a time with a pause between.
        case trickle(bytes: Int, pause: Double)
        /// Claim the full Content-Length but close the connection after `bytes` body bytes.
        case truncateAfter(bytes: Int)
        /// Answer a range request with 200 and the whole file.
        case ignoreRange
        /// Answer a range request with 206 whose Content-Range and body start `shift` bytes off.
        case lieAboutRange(shift: Int)
        /// Always 416 Range Not Satisfiable.
        case rangeNotSatisfiable
        /// Send `extra` garbage bytes after the Content-Length the response claims.
        case extraBytes(Int)
        /// Answer a range request with 206 and a correct `Content-Range`, but no `Content-Length`,
        /// and send `extra` bytes more than the range holds before closing.
        case overlongRange(extra: Int)
        /// Stream bytes with no Content-Length until the client gives up.
        case endless
        /// 302 to `base` + the request path (another host:port, another scheme).
        case redirect(base: String)
    }

    public let root: String
    public var port: UInt16 { listener.port }
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private var listener: LoopbackListener!
    private let keepAlive: Bool
    private var accepted = 0
    private var endlessSent: Int64 = 0
    private let lock = NSLock()
    private var log: [Request] = []
    private var behavior: @Sendable (Request) -> Behavior
    private let connections = DispatchGroup()

    public static let lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"

    public init(root: String, keepAlive: Bool = false, behavior: @escaping @Sendable (Request) -> Behavior = { _ in .normal }) throws {
        self.root = root
        self.keepAlive = keepAlive
        self.behavior = behavior
        listener = try LoopbackListener { [weak self] client in
            guard let self else { _ = close(client); return }
            serve(client)
        }
    }

    deinit { stop() }

    /// Replaces how the server answers from now on.
    public func setBehavior(_ behavior: @escaping @Sendable (Request) -> Behavior) {
        lock.withLock { self.behavior = behavior }
    }

    /// Every request received so far, in arrival order.
    public var requests: [Request] { lock.withLock { log } }
    public var requestCount: Int { lock.withLock { log.count } }
    public func requests(for path: String) -> [Request] { requests.filter { $0.path == path } }
    /// Connections accepted so far.
    public var connectionCount: Int { lock.withLock { accepted } }
    /// Body bytes `.endless` answers got into the socket before the client went away.
    public var endlessBytesSent: Int64 { lock.withLock { endlessSent } }

    /// Stops accepting, wakes stalled connections, and waits for every connection thread.
    public func stop() {
        guard listener.stop() else { return }
        connections.wait()
    }

    private var isStopped: Bool { listener.isStopped }

    /// One accepted connection, answered on a thread of its own.
    private func serve(_ client: Int32) {
        lock.withLock { accepted += 1 }
        connections.enter()
        Thread { [self] in
            defer {
                close(client)
                connections.leave()
            }
            handle(client)
        }.start()
    }

    // MARK: - One connection

    private func handle(_ fd: Int32) {
        var first = true
        repeat {
            // The next request on a kept connection may come late (a loaded machine): no deadline.
            guard answerOne(fd, within: first ? 10 : nil) else { return }
            first = false
        } while keepAlive
    }

    /// Reads one request and answers it; false when none came (the client left, or the server stops).
    private func answerOne(_ fd: Int32, within seconds: Double?) -> Bool {
        guard let (method, target, headers) = readHead(fd, within: seconds) else { return false }
        let rawPath = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let path = rawPath.removingPercentEncoding ?? rawPath
        let (request, how) = lock.withLock { () -> (Request, Behavior) in
            let r = Request(index: log.count, method: method, path: path, headers: headers)
            log.append(r)
            return (r, behavior(r))
        }
        respond(fd, request, how)
        return true
    }

    private func readHead(_ fd: Int32, within seconds: Double?) -> (String, String, [String: String])? {
        var data = [UInt8]()
        let deadline = seconds.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while Date() < deadline, data.count < 64 * 1024, !isStopped {
            if let end = find(data, Array("\r\n\r\n".utf8)) {
                let text = String(decoding: data[..<end], as: UTF8.self)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count == 3 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return (String(requestLine[0]), String(requestLine[1]), headers)
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { return nil }
            if pfd.revents == 0 { continue }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buf, buf.count, 0)
            guard n > 0 else { return nil }
            data += buf[..<n]
        }
        return nil
    }

    private func find(_ hay: [UInt8], _ needle: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where Array(hay[i..<i + needle.count]) == needle { return i }
        return nil
    }

    private func respond(_ fd: Int32, _ request: Request, _ how: Behavior) {
        if case let .status(code) = how { return send(fd, head(code, ["Content-Length": "0"])) }
        if case let .statusWithBody(code, body) = how { return send(fd, head(code, ["Content-Length": String(body.count)]) + body) }
        if case let .redirect(base) = how {
            // A small body, as real servers send, which the client must read past and never deliver.
            let body = Data("<a href=\"\(base + request.path)\">moved</a>".utf8)
            return send(fd, head(302, ["Location": base + request.path, "Content-Length": String(body.count)]) + body)
        }
        if case .rangeNotSatisfiable = how { return send(fd, head(416, ["Content-Length": "0"])) }

        let content: Data
        if case let .content(data) = how {
            content = data
        } else {
            guard TreePath.isSafe(String(request.path.dropFirst())),
                  let data = FileManager.default.contents(atPath: root + request.path) else {
                return send(fd, head(404, ["Content-Length": "0"]))
            }
            content = data
        }
        let etag = "\"\(SHA256.hex(content).prefix(16))\""
        var headers = ["ETag": etag, "Last-Modified": Self.lastModified, "Accept-Ranges": "bytes"]

        if case .endless = how {
            send(fd, head(200, headers))
            let chunk = Data(repeating: 0x41, count: 16 * 1024)
            while !isStopped, sendAll(fd, chunk) {
                lock.withLock { endlessSent += Int64(chunk.count) }
            }
            return
        }
        if request.headers["if-none-match"] == etag {
            headers["Content-Length"] = "0"
            return send(fd, head(304, headers))
        }

        // Ranges: `bytes=N-` or `bytes=N-M`, unless If-Range names another version.
        var status = 200
        var start = 0
        var end = content.count
        if let range = request.headers["range"], range.hasPrefix("bytes="), request.headers["if-range"].map({ $0 == etag || $0 == Self.lastModified }) ?? true {
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, let first = Int(bounds[0]) {
                let last = Int(bounds[1]).map { min($0, content.count - 1) } ?? content.count - 1
                if first >= content.count || first > last {
                    headers["Content-Range"] = "bytes */\(content.count)"
                    headers["Content-Length"] = "0"
                    return send(fd, head(416, headers))
                }
                switch how {
                case .ignoreRange:
                    break
                case let .lieAboutRange(shift):
                    status = 206
                    start = max(0, min(content.count - 1, first + shift))
                    end = last + 1
                default:
                    status = 206
                    start = first
                    end = last + 1
                }
                if status == 206 { headers["Content-Range"] = "bytes \(start)-\(end - 1)/\(content.count)" }
            }
        }
        let body = content.subdata(in: start..<end)
        if case let .overlongRange(extra) = how {
            send(fd, head(status, headers))
            _ = sendAll(fd, body + Data(repeating: 0x5a, count: extra))
            return
        }
        headers["Content-Length"] = String(body.count)
        send(fd, head(status, headers))

        switch how {
        case let .stallAfter(bytes):
            _ = sendAll(fd, body.prefix(bytes))
            waitForClientToLeave(fd)
        case let .trickle(bytes, pause):
            var offset = 0
            while offset < body.count, !isStopped {
                let n = min(bytes, body.count - offset)
                guard sendAll(fd, body.subdata(in: offset..<offset + n)) else { return }
                offset += n
                usleep(UInt32(pause * 1_000_000))
            }
        case let .truncateAfter(bytes):
            _ = sendAll(fd, body.prefix(bytes))
        case let .extraBytes(extra):
            _ = sendAll(fd, body + Data(repeating: 0x5a, count: extra))
        default:
            _ = sendAll(fd, body)
        }
    }

    private func head(_ status: Int, _ headers: [String: String]) -> Data {
        let reason = [200: "OK", 206: "Partial Content", 302: "Found", 304: "Not Modified", 404: "Not Found",
                      416: "Range Not Satisfiable", 500: "Internal Server Error", 503: "Service Unavailable"][status] ?? "Status"
        var text = "HTTP/1.1 \(status) \(reason)\r\n" + (keepAlive ? "" : "Connection: close\r\n")
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { text += "\(k): \(v)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    private func send(_ fd: Int32, _ data: Data) { _ = sendAll(fd, data) }

    private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    /// Holds a stalled connection open until the client closes it or the server stops.
    private func waitForClientToLeave(_ fd: Int32) {
        var buf = [UInt8](repeating: 0, count: 512)
        while !isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) >= 0 else { return }
            if pfd.revents != 0 && recv(fd, &buf, buf.count, 0) <= 0 { return }
        }
    }
}
