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
        #expect(server.stderr.contains("SIGHUP: re-reading the catalogs"), "\(server.stderr)")
        // A second one, and then SIGTERM still stops it cleanly.
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try ServerTestClient.request(port: server.port, "GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
    }
}
