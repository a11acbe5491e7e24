import Foundation
import CorpusTestSupport

/// The real curl downloading one URL at 8 MiB/s (a 16 MiB file takes about two seconds), for
/// tests that do something to the server while a download is in flight.
final class SlowCurlDownload {
    let out = TempDirectory("curl")
    private let curl = Process()
    private let status = Pipe()

    var file: String { out.url("download") }

    /// Starts the download and returns once its first bytes are on disk (at most 20 s).
    init(_ url: String) throws {
        curl.executableURL = URL(fileURLWithPath: try ProcessRunner.which("curl"))
        curl.arguments = ["-s", "--limit-rate", "8M", "-o", file, "-w", "%{http_code}", url]
        curl.standardOutput = status
        try curl.run()
        let deadline = Date().addingTimeInterval(20)
        while ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int ?? 0) == 0 && Date() < deadline { usleep(20_000) }
    }

    /// Waits for curl to finish; returns the HTTP status it printed and the bytes it wrote.
    func finish() -> (status: String, body: Data?) {
        curl.waitUntilExit()
        return (String(decoding: status.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), FileManager.default.contents(atPath: file))
    }

    deinit { if curl.isRunning { curl.terminate() } }
}
