import Foundation
import CorpusEngine

/// `corpus-bench search-load --home HOME --queries FILE [--clients 16] [--seconds 5] [--url URL]`:
/// p50 latency and requests/s of searches from `clients` concurrent clients, each asking the
/// queries of FILE (one a line) in turn. Without `--url`, local search: the engine in this
/// process over HOME, as an app linking it does. With `--url`, the same queries as
/// `GET URL/v1/search?q=` over keep-alive connections (curl, one per client), the remote path.
/// Prints `search-load clients=N requests=R seconds=S rps=X p50_ms=Y p90_ms=Z`.
enum SearchLoadBench {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static func run(args: [String]) async throws {
        func value(_ flag: String, _ fallback: String) -> String {
            guard let i = args.firstIndex(of: flag), i + 1 < args.count else { return fallback }
            return args[i + 1]
        }
        let home = value("--home", "")
        let queries = try String(contentsOfFile: value("--queries", ""), encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        let clients = Int(value("--clients", "16")) ?? 16
        let seconds = Double(value("--seconds", "5")) ?? 5
        let url = args.contains("--url") ? value("--url", "") : nil
        guard !queries.isEmpty else { throw SearchLoadBench.Failure("no queries") }
        let library = CorpusLibrary(home: home)
        // Warm: open every corpus and page the packs in, as a long-running server has.
        for q in queries.prefix(20) { _ = try await library.search(q) }
        let deadline = Date().addingTimeInterval(seconds)
        let start = Date()
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for c in 0..<clients {
                group.addTask {
                    var mine: [Double] = []
                    var i = c
                    let session = url.map { _ in URLSessionLess() }
                    while Date() < deadline {
                        let q = queries[i % queries.count]
                        i += clients
                        let t0 = Date()
                        if let url, let session {
                            try session.get("\(url)/v1/search?q=\(q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
                        } else {
                            _ = try await library.search(q)
                        }
                        mine.append(Date().timeIntervalSince(t0) * 1000)
                    }
                    return mine
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        let elapsed = Date().timeIntervalSince(start)
        let sorted = latencies.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        print(String(format: "search-load clients=%d requests=%d seconds=%.1f rps=%.1f p50_ms=%.2f p90_ms=%.2f",
                     clients, sorted.count, elapsed, Double(sorted.count) / elapsed, pct(0.5), pct(0.9)))
    }
}

/// One keep-alive HTTP/1.1 connection to a loopback server, GET only, reading Content-Length
/// bodies: enough for the bench, without FoundationNetworking or a client process per request.
final class URLSessionLess: @unchecked Sendable {
    private var fd: Int32 = -1
    private var host = "", port: UInt16 = 0

    func get(_ url: String) throws {
        guard let u = URLComponents(string: url), let h = u.host, let p = u.port else { throw SearchLoadBench.Failure("bad url \(url)") }
        if fd < 0 || host != h || port != UInt16(p) { try connect(h, UInt16(p)) }
        let target = u.percentEncodedPath + (u.percentEncodedQuery.map { "?" + $0 } ?? "")
        let request = Array("GET \(target) HTTP/1.1\r\nHost: \(h)\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { throw SearchLoadBench.Failure("send failed") }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var need: Int?
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { throw SearchLoadBench.Failure("connection closed") }
            buffer += chunk[0..<n]
            if need == nil, let end = Self.find(buffer, Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self).lowercased()
                guard head.hasPrefix("http/1.1 200") else { throw SearchLoadBench.Failure("status: \(head.prefix(40))") }
                let length = head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                need = end + 4 + length
            }
            if let need, buffer.count >= need { return }
        }
    }

    private func connect(_ h: String, _ p: UInt16) throws {
        if fd >= 0 { close(fd) }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = p.bigEndian
        inet_pton(AF_INET, h, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { throw SearchLoadBench.Failure("connect to \(h):\(p) failed") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        host = h
        port = p
    }

    static func find(_ hay: [UInt8], _ needle: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle { return i }
        return nil
    }

    deinit { if fd >= 0 { close(fd) } }
}
