import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// A deploy replaces the whole served folder: a new tree moved over PUBLIC_DIR (`mv`), or the
/// symlink PUBLIC_DIR is swapped to a new tree (`ln -s new tmp && mv -T tmp PUBLIC_DIR`). The
/// server once kept serving the folder it opened at start, forever; now a look at the path, at
/// most once a second on the request path, reopens it.
@Suite struct ServedRootSwapTests {
    /// A parent folder with two trees, `a` and `b`, whose files say which tree they are in.
    final class Trees {
        let parent = TempDirectory("root-swap")

        init() throws {
            for name in ["a", "b"] {
                _ = try parent.write("\(name)/index.html", "<!doctype html><title>\(name)</title>\n")
                _ = try parent.write("\(name)/catalogs/1.json", "{\"tree\":\"\(name)\"}")
                _ = try parent.write("\(name)/only-in-\(name).txt", name)
            }
        }

        func server(root: String) throws -> HTTPServer {
            var config = ServerConfiguration(root: root, port: 0)
            config.threads = 2
            return try HTTPServer(config)
        }
    }

    /// GETs `path` until its body is `text` (or `deadline` passes); the seconds it took, nil if never.
    static func served(_ server: HTTPServer, _ path: String, _ text: String, within deadline: Double) throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < deadline {
            let r = try ServerTestClient.request(port: server.port, "GET", path)
            if r.status == 200 && r.text == text { return Date().timeIntervalSince(start) }
            usleep(20_000)
        }
        return nil
    }

    /// Cached (asked twice) before the swap, so the small-file cache must let go as well.
    static func warm(_ server: HTTPServer, _ tree: String) throws {
        for _ in 0..<2 {
            #expect(try ServerTestClient.request(port: server.port, "GET", "/index.html").text == "<!doctype html><title>\(tree)</title>\n")
            #expect(try ServerTestClient.request(port: server.port, "GET", "/catalogs/1.json").text == "{\"tree\":\"\(tree)\"}")
        }
        #expect(server.metrics.fileCacheHitCount > 0)
    }

    @Test func aTreeMovedOverTheServedFolderIsServedWithinASecond() throws {
        let t = try Trees()
        let root = t.parent.url("public")
        #expect(rename(t.parent.url("a"), root) == 0)
        let server = try t.server(root: root)
        defer { server.stop(grace: .zero) }
        try Self.warm(server, "a")
        // The usual deploy by mv: the old tree aside, the new one into its place.
        #expect(rename(root, t.parent.url("old")) == 0)
        #expect(rename(t.parent.url("b"), root) == 0)
        let took = try Self.served(server, "/index.html", "<!doctype html><title>b</title>\n", within: 3)
        #expect(took != nil && took! <= 1.2, "the new tree was not served within a second: \(String(describing: took))")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/catalogs/1.json").text == "{\"tree\":\"b\"}")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/only-in-a.txt").status == 404)
        #expect(try ServerTestClient.request(port: server.port, "GET", "/only-in-b.txt").text == "b")
    }

    @Test func aSymlinkedRootSwappedToAnotherTreeIsServedWithinASecond() throws {
        let t = try Trees()
        let root = t.parent.url("current")
        #expect(symlink(t.parent.url("a"), root) == 0)
        let server = try t.server(root: root)
        defer { server.stop(grace: .zero) }
        try Self.warm(server, "a")
        // The atomic symlink swap: a new link beside it, renamed over it.
        #expect(symlink(t.parent.url("b"), t.parent.url("current.new")) == 0)
        #expect(rename(t.parent.url("current.new"), root) == 0)
        let took = try Self.served(server, "/catalogs/1.json", "{\"tree\":\"b\"}", within: 3)
        #expect(took != nil && took! <= 1.2, "the new tree was not served within a second: \(String(describing: took))")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/index.html").text == "<!doctype html><title>b</title>\n")
        // And back: the tree it left is reopened again by path.
        #expect(symlink(t.parent.url("a"), t.parent.url("current.new")) == 0)
        #expect(rename(t.parent.url("current.new"), root) == 0)
        #expect(try Self.served(server, "/index.html", "<!doctype html><title>a</title>\n", within: 3) != nil)
    }

    /// Mid-deploy the path may name nothing for a moment: the server keeps the tree it has.
    @Test func aServedFolderMissingForAMomentKeepsTheTreeServed() throws {
        let t = try Trees()
        let root = t.parent.url("public")
        #expect(rename(t.parent.url("a"), root) == 0)
        let server = try t.server(root: root)
        defer { server.stop(grace: .zero) }
        try Self.warm(server, "a")
        #expect(rename(root, t.parent.url("old")) == 0)
        usleep(1_200_000)
        #expect(try ServerTestClient.request(port: server.port, "GET", "/index.html").text == "<!doctype html><title>a</title>\n")
        #expect(rename(t.parent.url("b"), root) == 0)
        #expect(try Self.served(server, "/index.html", "<!doctype html><title>b</title>\n", within: 3) != nil)
    }
}
