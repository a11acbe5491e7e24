import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// The server over real loopback HTTP: files, headers, methods, conditional and range requests.
@Suite struct ServerHTTPTests {
    @Test func servesEachKindOfFileWithItsTypeAndCachePolicy() throws {
        let f = try ServerFixture()
        let free = f.tree.bundlePaths["free-guide"]!
        let cases: [(String, String, String, String)] = [
            ("/", "index.html", "text/html; charset=utf-8", "no-cache"),
            ("/index.html", "index.html", "text/html; charset=utf-8", "no-cache"),
            ("/catalog.json", "catalog.json", "application/json", "no-cache"),
            ("/catalogs/1.json", "catalogs/1.json", "application/json", "public, max-age=31536000, immutable"),
            ("/catalogs/1.json.minisig", "catalogs/1.json.minisig", "text/plain; charset=utf-8", "public, max-age=31536000, immutable"),
            ("/keys/root-1.json", "keys/root-1.json", "application/json", "public, max-age=31536000, immutable"),
            ("/keys/root-1.json.minisig", "keys/root-1.json.minisig", "text/plain; charset=utf-8", "public, max-age=31536000, immutable"),
            ("/keys/root.pub", "keys/root.pub", "text/plain; charset=utf-8", "no-cache"),
            ("/" + free, free, "application/zip", "public, max-age=31536000, immutable"),
        ]
        for (target, file, type, cache) in cases {
            let r = try f.get(target)
            #expect(r.status == 200, "\(target)")
            #expect(r.body == FileManager.default.contents(atPath: f.tree.dir.url(file)), "\(target)")
            #expect(r.header("Content-Type") == type, "\(target)")
            #expect(r.header("Cache-Control") == cache, "\(target)")
            #expect(r.header("Accept-Ranges") == "bytes" && r.header("Last-Modified") != nil && r.header("ETag") != nil, "\(target)")
        }
        // A bundle's ETag is its content hash, the same on every host that serves it.
        let sha = f.tree.catalog.corpora.first { $0.id == "free-guide" }!.bundle.digest.hex
        #expect(try f.get("/" + free).header("ETag") == "\"\(sha)\"")
    }

    @Test func headSendsHeadersWithoutBodyAndKeepsTheConnection() throws {
        let f = try ServerFixture()
        let c = try RawConnection(port: f.port)
        c.send("HEAD \(f.bundle("free-guide")) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try c.readResponse(bodyless: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "10000")
        // Had any body bytes been sent, they would be read here as the next status line.
        c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let next = try c.readResponse()
        #expect(next.status == 200 && next.text == "ok\n")
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "PROPFIND"])
    func onlyGetAndHeadAreAllowed(_ method: String) throws {
        let f = try ServerFixture()
        let r = try ServerTestClient.request(port: f.port, method, "/catalog.json")
        #expect(r.status == 405)
        #expect(r.header("Allow") == "GET, HEAD")
    }

    @Test func healthAndMetrics() throws {
        let f = try ServerFixture()
        let health = try f.get("/healthz")
        #expect(health.status == 200 && health.text == "ok\n")
        #expect(try f.get(f.bundle("free-guide")).status == 200)
        #expect(try f.get(f.bundle("paid-atlas")).status == 401)
        #expect(try f.get("/nope").status == 404)
        // A request is counted when its response has ended, which may be just after the client read
        // it (the 10 KB bundle's most of all): wait, bounded, for every count the scrape asserts.
        #expect(f.eventually {
            let m = f.server.metrics
            return m.requests(status: 200) == 2 && m.requests(status: 401) == 1 && m.requests(status: 404) == 1
        })
        let text = try f.get("/metrics").text
        #expect(text.contains("corpusd_requests_total{status=\"200\"} 2"))
        #expect(text.contains("corpusd_requests_total{status=\"401\"} 1"))
        #expect(text.contains("corpusd_requests_total{status=\"404\"} 1"))
        #expect(text.contains("corpusd_gated_refusals_total{status=\"401\"} 1"))
        #expect(text.contains("corpusd_gated_refusals_total{status=\"403\"} 0"))
        #expect(text.contains("# TYPE corpusd_open_connections gauge"))
        let bytes = text.split(separator: "\n").first { $0.hasPrefix("corpusd_response_bytes_total ") }.flatMap { Int($0.split(separator: " ")[1]) }
        #expect((bytes ?? 0) >= 10_003)
    }

    @Test func singleRangesAreServedWith206() throws {
        let f = try ServerFixture()
        let data = f.tree.bundleBytes["free-guide"]!
        let path = f.bundle("free-guide")
        let cases: [(String, Range<Int>)] = [("bytes=0-99", 0..<100), ("bytes=9990-", 9990..<10000), ("bytes=-10", 9990..<10000),
                                             ("bytes=5000-999999", 5000..<10000), ("bytes=7-7", 7..<8)]
        for (range, expected) in cases {
            let r = try f.get(path, headers: ["Range": range])
            #expect(r.status == 206, "\(range)")
            #expect(r.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/10000", "\(range)")
            #expect(r.body == data.subdata(in: expected), "\(range)")
        }
    }

    @Test func severalMalformedOrUnsatisfiableRanges() throws {
        let f = try ServerFixture()
        let data = f.tree.bundleBytes["free-guide"]!
        let path = f.bundle("free-guide")
        // Several ranges, overlapping or not: the whole file, once (no multipart amplification).
        for range in ["bytes=0-1,3-4", "bytes=0-,0-,0-,0-,0-,0-,0-,0-", "bytes=" + Array(repeating: "1-2", count: 200).joined(separator: ","),
                      "bytes=abc", "bytes=5-3", "pages=1-2"] {
            let r = try f.get(path, headers: ["Range": range])
            #expect(r.status == 200, "\(range)")
            #expect(r.body == data, "\(range)")
            #expect(r.header("Content-Range") == nil, "\(range)")
        }
        for range in ["bytes=10000-", "bytes=20000-30000", "bytes=-0"] {
            let r = try f.get(path, headers: ["Range": range])
            #expect(r.status == 416, "\(range)")
            #expect(r.header("Content-Range") == "bytes */10000", "\(range)")
        }
    }

    @Test func ifRangeAppliesTheRangeOnlyToTheSameRepresentation() throws {
        let f = try ServerFixture()
        let path = f.bundle("free-guide")
        let full = try f.get(path)
        let etag = try #require(full.header("ETag")), lastModified = try #require(full.header("Last-Modified"))
        #expect(try f.get(path, headers: ["Range": "bytes=0-9", "If-Range": etag]).status == 206)
        #expect(try f.get(path, headers: ["Range": "bytes=0-9", "If-Range": lastModified]).status == 206)
        for stale in ["\"0000\"", "W/\(etag)", "Sun, 06 Nov 1994 08:49:37 GMT"] {
            let r = try f.get(path, headers: ["Range": "bytes=0-9", "If-Range": stale])
            #expect(r.status == 200, "\(stale)")
            #expect(r.body.count == 10_000, "\(stale)")
        }
    }

    @Test func conditionalRequestsGet304() throws {
        let f = try ServerFixture()
        let first = try f.get("/catalog.json")
        let etag = try #require(first.header("ETag")), lastModified = try #require(first.header("Last-Modified"))
        for headers in [["If-None-Match": etag], ["If-None-Match": "\"x\", \(etag)"], ["If-None-Match": "W/\(etag)"], ["If-None-Match": "*"],
                        ["If-Modified-Since": lastModified]] {
            let r = try f.get("/catalog.json", headers: headers)
            #expect(r.status == 304, "\(headers)")
            #expect(r.body.isEmpty && r.header("ETag") == etag && r.header("Cache-Control") == "no-cache", "\(headers)")
        }
        for headers in [["If-None-Match": "\"other\""], ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"],
                        ["If-None-Match": "\"other\"", "If-Modified-Since": lastModified]] {
            #expect(try f.get("/catalog.json", headers: headers).status == 200, "\(headers)")
        }
        // A rewritten file gets a new validator.
        let indexTag = try #require(try f.get("/index.html").header("ETag"))
        #expect(try f.get("/index.html", headers: ["If-None-Match": indexTag]).status == 304)
        try f.tree.dir.write("index.html", "changed")
        let after = try f.get("/index.html", headers: ["If-None-Match": indexTag])
        #expect(after.status == 200 && after.text == "changed")
    }
}
