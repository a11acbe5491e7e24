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
        let out = TempDirectory("curl")
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: try ProcessRunner.which("curl"))
        // About two seconds for the whole file, so the signal lands in the middle.
        curl.arguments = ["-s", "--limit-rate", "8M", "-o", out.url("big"), "-w", "%{http_code}", server.url + "/" + tree.bundlePaths["big"]!]
        let status = Pipe()
        curl.standardOutput = status
        try curl.run()
        defer { if curl.isRunning { curl.terminate() } }
        let deadline = Date().addingTimeInterval(20)
        while ((try? FileManager.default.attributesOfItem(atPath: out.url("big")))?[.size] as? Int ?? 0) == 0 && Date() < deadline { usleep(20_000) }

        kill(server.process.processIdentifier, SIGHUP)
        curl.waitUntilExit()
        #expect(String(decoding: status.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "200")
        #expect(FileManager.default.contents(atPath: out.url("big")) == tree.bundleBytes["big"])
        #expect(server.process.isRunning, "corpusd serve died of SIGHUP: \(server.stderr)")
        #expect(try ServerTestClient.request(port: server.port, "GET", "/healthz").status == 200)
        #expect(server.stderr.contains("SIGHUP: re-reading the catalogs"), "\(server.stderr)")
        // A second one, and then SIGTERM still stops it cleanly.
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try ServerTestClient.request(port: server.port, "GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
    }
}
