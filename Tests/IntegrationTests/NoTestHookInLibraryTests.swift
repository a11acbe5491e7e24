import Testing
import Foundation
import CorpusTestSupport

/// The library an app links holds no test hook: no object file of `CorpusSync` (or any other
/// library module) names the crash harness's environment variable, so an app whose environment
/// happens to set it is never killed. The harness lives in the `corpus` executable of debug
/// builds only; `make release` checks the release binary the same way.
@Suite struct NoTestHookInLibraryTests {
    static let variable = Array("CORPUS_TEST_KILL_AT".utf8)

    @Test func noLibraryObjectNamesTheKillVariable() throws {
        let products = BuiltProducts.directory
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources").path
        var checked = 0
        for module in ["CorpusFormat", "CorpusEngine", "CorpusSync", "CorpusPublisher", "CorpusServer", "CorpusMirror",
                       "CorpusCLIKit", "CorpusClientCLI", "CorpusServerCLI"] {
            let dir = "\(products)/\(module).build"
            // The objects of today's sources: a renamed file's old object may linger in the folder.
            let objects = try FileManager.default.contentsOfDirectory(atPath: "\(sources)/\(module)")
                .filter { $0.hasSuffix(".swift") }.map { "\($0).o" }
            #expect(!objects.isEmpty, "no sources in \(sources)/\(module)")
            for name in objects {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)")))
                #expect(!Self.contains(bytes, Self.variable), "\(module)/\(name) names CORPUS_TEST_KILL_AT")
                checked += 1
            }
        }
        #expect(checked > 50)
        // The harness itself is in the debug executable, so the kill tests can use it.
        let exe = try [UInt8](Data(contentsOf: URL(fileURLWithPath: BuiltProducts.corpus)))
        #expect(Self.contains(exe, Self.variable), "the debug corpus binary lacks its crash harness")
    }

    static func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        guard hay.count >= needle.count, let first = needle.first else { return false }
        var i = 0
        while i <= hay.count - needle.count {
            if hay[i] == first, Array(hay[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }
}
