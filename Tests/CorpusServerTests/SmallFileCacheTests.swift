import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// `SmallFileCache`: a plain GET of a small file is answered from the response built for it before,
/// and only while the path still names that very file, unchanged; nothing else is ever cached.
@Suite struct SmallFileCacheTests {
    /// GETs `target` and returns the body after checking the status.
    private func body(_ f: ServerFixture, _ target: String, headers: [String: String] = [:]) throws -> Data {
        let r = try f.get(target, headers: headers)
        #expect(r.status == 200, "\(target): \(r.text)")
        return r.body
    }

    @Test func aSmallFileAskedAgainIsAnsweredFromTheResponseBuiltTheFirstTime() throws {
        let f = try ServerFixture()
        let first = try f.get("/index.html")
        let second = try f.get("/index.html")
        #expect(f.server.metrics.fileCacheHitCount == 1)
        #expect(second.status == 200)
        #expect(second.body == FileManager.default.contents(atPath: f.tree.dir.url("index.html")))
        // The same header fields as the response built from the file.
        for name in ["Content-Type", "Cache-Control", "ETag", "Last-Modified", "Accept-Ranges", "X-Content-Type-Options", "Content-Length"] {
            #expect(second.header(name) != nil && second.header(name) == first.header(name), "\(name)")
        }
        #expect(second.header("Connection")?.lowercased() == "close", "the request's Connection: close still holds")
        let metrics = try f.get("/metrics").text
        #expect(metrics.contains("corpusd_file_cache_hits_total 1\n"), "\(metrics)")
    }

    @Test func aFileReplacedByRenameIsServedNewAtOnce() throws {
        let f = try ServerFixture()
        _ = try body(f, "/index.html")
        try FileIO.writeAtomically(Data("<!doctype html><title>New</title>\n".utf8), to: f.tree.dir.url("index.html"))
        #expect(try body(f, "/index.html") == Data("<!doctype html><title>New</title>\n".utf8))
        #expect(f.server.metrics.fileCacheHitCount == 0)
    }

    @Test func aFileRewrittenInPlaceWithItsSizeAndMtimeKeptIsServedNew() throws {
        let f = try ServerFixture()
        let path = f.tree.dir.url("index.html")
        let old = try body(f, "/index.html")
        var before = stat()
        #expect(stat(path, &before) == 0)
        // Same inode, same size, and the mtime set back to the nanosecond: only the ctime tells.
        var replaced = old
        replaced[replaced.startIndex] = UInt8(ascii: "#")
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: replaced)
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(try body(f, "/index.html") == replaced)
    }

    @Test func aFolderTurnedIntoASymlinkOutOfTheTreeAfterCachingIsRefused() throws {
        let f = try ServerFixture()
        let catalog = "/" + TreeLayout.catalogPath(version: 1)
        _ = try body(f, catalog)
        _ = try body(f, catalog)
        #expect(f.server.metrics.fileCacheHitCount == 1)
        // The folder moves out of the tree and a symlink to a look-alike outside takes its place.
        let outside = TempDirectory("outside")
        _ = try outside.write("1.json", "TOP-SECRET-OUTSIDE-THE-TREE")
        try FileManager.default.moveItem(atPath: f.tree.dir.url("catalogs"), toPath: outside.url("moved"))
        #expect(symlink(outside.path, f.tree.dir.url("catalogs")) == 0)
        let r = try f.get(catalog)
        #expect(r.status == 404)
        #expect(!r.text.contains("TOP-SECRET"))
        // Even when the symlink leads to the very file that was served (the moved folder).
        try FileManager.default.removeItem(atPath: f.tree.dir.url("catalogs"))
        #expect(symlink(outside.url("moved"), f.tree.dir.url("catalogs")) == 0)
        #expect(try f.get(catalog).status == 404)
        #expect(f.server.metrics.fileCacheHitCount == 1)
    }

    @Test func conditionalRangeAndHeadRequestsAreAnsweredFromTheFile() throws {
        let f = try ServerFixture()
        let full = try f.get("/index.html")
        let etag = try #require(full.header("ETag"))
        #expect(try f.get("/index.html", headers: ["If-None-Match": etag]).status == 304)
        let part = try f.get("/index.html", headers: ["Range": "bytes=0-4"])
        #expect(part.status == 206)
        #expect(part.body == full.body.prefix(5))
        let head = try ServerTestClient.request(port: f.port, "HEAD", "/index.html")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == String(full.body.count))
        #expect(f.server.metrics.fileCacheHitCount == 0)
    }

    @Test func gatedBundlesAndLargeFilesAreNeverCached() throws {
        let f = try ServerFixture(specs: [.init("paid-notes", .entitled, tier: "silver", size: 3_000),
                                          .init("free-big", .free, size: 40_000)])
        let token = try f.tree.token(tiers: ["silver"])
        for _ in 0..<2 {
            let r = try f.get(f.bundle("paid-notes"), headers: f.bearer(token))
            #expect(r.status == 200 && r.body == f.tree.bundleBytes["paid-notes"])
            #expect(try f.get(f.bundle("paid-notes")).status == 401)
            #expect(try body(f, f.bundle("free-big")) == f.tree.bundleBytes["free-big"])
        }
        #expect(f.server.metrics.fileCacheHitCount == 0)
    }

    @Test func theLeastRecentlyUsedGoFirstAndLimitsHold() throws {
        let f = try ServerFixture { $0.smallFileCacheBytes = 0 }
        _ = try body(f, "/index.html")
        _ = try body(f, "/index.html")
        #expect(f.server.metrics.fileCacheHitCount == 0, "0 turns the cache off")

        let g = try ServerFixture()
        for n in 0..<3 { _ = try g.tree.dir.write("f\(n).txt", String(repeating: "\(n)", count: 100)) }
        let cache = SmallFileCache(byteLimit: 250, entryLimit: 8)
        let tree = try StaticTree(path: g.tree.root)
        func prepared(_ name: String) throws -> (PreparedResponse, FileIdentity) {
            let file = try #require(tree.open([name]))
            let response = try #require(PreparedResponse(HTTPResponse(status: .ok, body: .bytes(Array(repeating: 0, count: 100))), close: false))
            return (response, file.identity)
        }
        for n in 0..<2 {
            let (r, id) = try prepared("f\(n).txt")
            cache.insert(path: "f\(n).txt", segments: ["f\(n).txt"], identity: id, response: r, bytes: 100, current: { id })
        }
        // f0 used last: f1 goes when f2 comes.
        #expect(cache.response(path: "f0.txt", current: { tree.currentIdentity(["f0.txt"]) }) != nil)
        let (r2, id2) = try prepared("f2.txt")
        cache.insert(path: "f2.txt", segments: ["f2.txt"], identity: id2, response: r2, bytes: 100, current: { id2 })
        #expect(cache.response(path: "f1.txt", current: { tree.currentIdentity(["f1.txt"]) }) == nil)
        #expect(cache.response(path: "f0.txt", current: { tree.currentIdentity(["f0.txt"]) }) != nil)
        #expect(cache.response(path: "f2.txt", current: { tree.currentIdentity(["f2.txt"]) }) != nil)
        // An identity that is not the file's now is a miss.
        #expect(cache.response(path: "f2.txt", current: { tree.currentIdentity(["f0.txt"]) }) == nil)
        let (big, bigID) = try prepared("f0.txt")
        cache.insert(path: "big", segments: ["f0.txt"], identity: bigID, response: big, bytes: 251, current: { bigID })
        #expect(cache.response(path: "big", current: { bigID }) == nil, "larger than the whole cache: not kept")
    }
}
