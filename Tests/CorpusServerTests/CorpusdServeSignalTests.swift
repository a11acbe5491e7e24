import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Signals a real `corpusd serve` meets in operation (docs/operations.md, "Signals").
@Suite struct CorpusdServeSignalTests {
    @Test func sighupReReadsTheTreeWithoutCuttingADownloadOrStopping() throws {
        let size = 16 << 20
        let tree = try ServerTestTree(specs: [.init("big", .free, size: size)])
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}"])
        #expect(server.waitForStdout(containing: "serving"))
        // About two seconds for the whole file, so the signal lands in the middle.
        let download = try SlowCurlDownload(server.url + "/" + tree.bundlePaths["big"]!)
        kill(server.process.processIdentifier, SIGHUP)
        let (status, body) = download.finish()
        #expect(status == "200")
        #expect(body == tree.bundleBytes["big"])
        #expect(server.process.isRunning, "corpusd serve died of SIGHUP: \(server.stderr)")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/healthz").status == 200)
        #expect(server.stderr.contains("SIGHUP: reopening \(tree.root) and re-reading its catalogs"), "\(server.stderr)")
        // A second one, and then SIGTERM still stops it cleanly.
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try ServerTestClient.request(port: server.port, "GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
    }

    /// A new tree moved over PUBLIC_DIR is served as soon as SIGHUP is handled: the folder is
    /// opened again by its path (it was kept open from the start, so the old tree was served
    /// forever, SIGHUP or not).
    @Test func sighupReopensTheServedFolderByPath() throws {
        let parent = TempDirectory("sighup-swap")
        for name in ["a", "b"] { _ = try parent.write("\(name)/index.html", "tree \(name)\n") }
        let root = parent.url("public")
        #expect(rename(parent.url("a"), root) == 0)
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", root, "--listen", "127.0.0.1:{PORT}"])
        defer { server.stop() }
        #expect(server.waitForStdout(containing: "serving"))
        for _ in 0..<2 { #expect(try ServerTestClient.request(port: server.port, "GET", "/index.html").text == "tree a\n") }
        #expect(rename(root, parent.url("old")) == 0)
        #expect(rename(parent.url("b"), root) == 0)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(server.stderrEventuallyContains("SIGHUP: reopening \(root) and re-reading its catalogs"), "\(server.stderr)")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/index.html").text == "tree b\n")
        // A path that names no folder any more: the tree opened before is kept, and said so.
        #expect(rename(root, parent.url("gone")) == 0)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(server.stderrEventuallyContains("warning: cannot serve \(root): No such file or directory; still serving the tree opened before"), "\(server.stderr)")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/index.html").text == "tree b\n")
        #expect(server.process.isRunning)
    }
}
