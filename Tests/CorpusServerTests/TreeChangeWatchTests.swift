#if os(Linux)
import Foundation
import Synchronization
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

final class Stop: Sendable {
    let flag = Atomic<Bool>(false)
}

/// `SmallFileCache` with a `TreeChangeWatch`: a hit does not look at the file, and every kind of
/// change to the file or a folder above it is a miss from the moment the change is made.
@Suite struct TreeChangeWatchTests {
    /// A tree with `catalogs/1.json` and `index.html`, and a cache on it holding both.
    final class Cached {
        let dir = TempDirectory("watch")
        let tree: StaticTree
        let cache: SmallFileCache
        var identities: [String: FileIdentity] = [:]

        init() throws {
            _ = try dir.write("catalogs/1.json", "{\"version\":1}")
            _ = try dir.write("index.html", "<!doctype html>")
            tree = try StaticTree(path: dir.path)
            cache = tree.smallFileCache(byteLimit: 1 << 20)
            for path in ["catalogs/1.json", "index.html"] { try insert(path) }
        }

        func insert(_ path: String) throws {
            let segments = path.split(separator: "/").map(String.init)
            let file = try #require(tree.open(segments))
            let response = try #require(PreparedResponse(HTTPResponse(status: .ok, body: .bytes(Array("x".utf8))), close: false))
            cache.insert(path: path, segments: segments, identity: file.identity, response: response, bytes: 1,
                         current: { self.tree.currentIdentity(segments) })
            identities[path] = file.identity
        }

        /// Whether `path` is a hit when the file is taken to be unchanged: only the watch can say otherwise.
        func hit(_ path: String, looks: Looks? = nil) -> Bool {
            let id = identities[path]
            return cache.response(path: path, current: { looks?.count += 1; return id }) != nil
        }
    }

    final class Looks {
        var count = 0
    }

    @Test func aHitDoesNotLookAtTheFile() throws {
        let c = try Cached()
        try #require(c.cache.watchesChanges, "inotify is at hand on this machine")
        let looks = Looks()
        for _ in 0..<100 {
            #expect(c.hit("catalogs/1.json", looks: looks))
            #expect(c.hit("index.html", looks: looks))
        }
        #expect(looks.count == 0)
    }

    static let changes: [(String, @Sendable (TempDirectory) throws -> Void)] = [
        ("replaced by rename", { try FileIO.writeAtomically(Data("{\"version\":2}".utf8), to: $0.url("catalogs/1.json")) }),
        ("rewritten in place", { dir in
            let h = try #require(FileHandle(forWritingAtPath: dir.url("catalogs/1.json")))
            try h.write(contentsOf: Data("{".utf8))
            try h.close()
        }),
        ("made unreadable", { #expect(chmod($0.url("catalogs/1.json"), 0) == 0) }),
        ("deleted", { try FileManager.default.removeItem(atPath: $0.url("catalogs/1.json")) }),
        ("folder renamed away", { try FileManager.default.moveItem(atPath: $0.url("catalogs"), toPath: $0.url("old")) }),
        ("folder swapped for a symlink", { dir in
            try FileManager.default.moveItem(atPath: dir.url("catalogs"), toPath: dir.url("old"))
            #expect(symlink(dir.url("old"), dir.url("catalogs")) == 0)
        }),
        ("written through a hard link outside the tree", { dir in
            let outside = dir.path + "-link"
            defer { unlink(outside) }
            #expect(link(dir.url("catalogs/1.json"), outside) == 0)
            let h = try #require(FileHandle(forWritingAtPath: outside))
            try h.write(contentsOf: Data("[".utf8))
            try h.close()
        }),
        ("renamed away and back", { dir in
            try FileManager.default.moveItem(atPath: dir.url("catalogs/1.json"), toPath: dir.url("catalogs/1.json.old"))
            try FileManager.default.moveItem(atPath: dir.url("catalogs/1.json.old"), toPath: dir.url("catalogs/1.json"))
        }),
    ]

    @Test(arguments: changes.indices)
    func everyChangeIsAMissAtOnce(_ index: Int) throws {
        let (name, change) = Self.changes[index]
        let c = try Cached()
        try #require(c.cache.watchesChanges)
        #expect(c.hit("catalogs/1.json"), "\(name)")
        try change(c.dir)
        #expect(!c.hit("catalogs/1.json"), "\(name): still a hit after the change")
        // Everything is forgotten: the other file is built again too.
        #expect(!c.hit("index.html"), "\(name)")
        // Cached again (when the path still names a file), it is a hit again.
        if c.tree.currentIdentity(["catalogs", "1.json"]) != nil {
            try c.insert("catalogs/1.json")
            #expect(c.hit("catalogs/1.json"), "\(name)")
        }
    }

    /// A publish writes new bundles and catalogs beside the cached files, and a careless operator
    /// may keep a log in the tree: changes to names no cached path goes through leave the cache
    /// as it is (and still unlooked-at).
    @Test func changesBesideTheCachedPathsLeaveTheCacheAlone() throws {
        let c = try Cached()
        try #require(c.cache.watchesChanges)
        let looks = Looks()
        #expect(c.hit("catalogs/1.json", looks: looks))
        _ = try c.dir.write("catalogs/2.json", "{\"version\":2}")
        try FileIO.writeAtomically(Data("{}".utf8), to: c.dir.url("catalogs/2.json"))
        _ = try c.dir.write("bundles/abc.corpus.zip", "zip")
        let log = try #require(FileHandle(forWritingAtPath: try c.dir.write("access.log", "")))
        for _ in 0..<3 { try log.write(contentsOf: Data("line\n".utf8)) }
        try log.close()
        try FileManager.default.removeItem(atPath: c.dir.url("access.log"))
        #expect(c.hit("catalogs/1.json", looks: looks))
        #expect(c.hit("index.html", looks: looks))
        #expect(looks.count == 0)
        // The pointer's usual replacement, next to it, still counts.
        try FileIO.writeAtomically(Data("<!doctype html><title>2</title>".utf8), to: c.dir.url("index.html"))
        #expect(!c.hit("index.html"))
    }

    /// On a file system where changes can come from elsewhere without an event (NFS, SMB, FUSE;
    /// here /proc, which is not on the list either), the cache looks at each file instead.
    @Test func aTreeOnAFileSystemWithoutCompleteEventsIsCheckedFileByFile() throws {
        let local = TempDirectory("watch-local")
        #expect(TreeChangeWatch.eventsAreComplete(at: local.path), "the test folder is on a local file system")
        #expect(try StaticTree(path: local.path).smallFileCache(byteLimit: 1 << 20).watchesChanges)
        #expect(!TreeChangeWatch.eventsAreComplete(at: "/proc/sys/kernel"))
        let proc = try StaticTree(path: "/proc/sys/kernel").smallFileCache(byteLimit: 1 << 20)
        #expect(!proc.watchesChanges && proc.isEnabled)
    }

    @Test func aFileChangedBeforeItsWatchIsNotCached() throws {
        let c = try Cached()
        try #require(c.cache.watchesChanges)
        _ = try c.dir.write("late.txt", "1")
        let file = try #require(c.tree.open(["late.txt"]))
        let response = try #require(PreparedResponse(HTTPResponse(status: .ok, body: .bytes([1])), close: false))
        // Opened, then replaced before the watch went on: the look after the watch sees another file.
        try FileIO.writeAtomically(Data("2".utf8), to: c.dir.url("late.txt"))
        c.cache.insert(path: "late.txt", segments: ["late.txt"], identity: file.identity, response: response, bytes: 1,
                       current: { c.tree.currentIdentity(["late.txt"]) })
        #expect(c.cache.response(path: "late.txt", current: { file.identity }) == nil)
    }

    /// Through a live server, with readers hammering the cached file: once the rename that
    /// replaces it has returned, no request sent after that gets the old bytes.
    @Test func underConcurrentHitsAReplacedFileIsNeverServedAfterTheRename() throws {
        let f = try ServerFixture()
        let path = "/index.html"
        let stop = Stop()
        let port = f.port
        let readers = (0..<3).map { _ in
            Thread {
                while !stop.flag.load(ordering: .relaxed) { _ = try? ServerTestClient.request(port: port, "GET", path) }
            }
        }
        readers.forEach { $0.start() }
        defer { stop.flag.store(true, ordering: .relaxed) }
        for round in 0..<40 {
            let text = "<!doctype html><title>round \(round)</title>\n"
            try FileIO.writeAtomically(Data(text.utf8), to: f.tree.dir.url("index.html"))
            let r = try f.get(path)
            #expect(r.status == 200 && r.text == text, "round \(round): \(r.text)")
            // Hits between rounds, so the next round replaces a cached file.
            #expect(try f.get(path).text == text)
        }
        #expect(f.server.metrics.fileCacheHitCount > 0)
    }
}
#endif
