import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusSync

/// The bundle hash an install records (`install.json` `bundle_sha256`) is the hash of the bundle
/// installed: a download's verified digest, or the file's own hash for an import, never a value
/// read back out of a file name.
@Suite struct InstallRecordHashTests {
    /// A bundle to import whose file is named like a download (`<64 hex>.part`): its name says
    /// nothing of its content.
    @Test func anImportNamedLikeADownloadRecordsItsOwnHash() throws {
        let env = try ClientTestEnvironment()
        let b = try env.bundle(id: "tides", version: "3", words: "neap springs")
        let misleading = env.work.url(String(repeating: "0", count: 64) + ".part")
        try FileManager.default.copyItem(atPath: b.path, toPath: misleading)
        try Installer(home: env.home).install(bundlePath: misleading, remote: "main", expected: nil, bundled: false,
                                              trustedKeys: [env.key.publicKey])
        let record = try #require(InstallRecord.read(versionDirectory: env.home.versionDirectory(remote: "main", id: "tides", version: "3")))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: b.path))
        #expect(record.bundleSHA256 == SHA256.hex(bytes))
        #expect(record.bundleSize == Int64(bytes.count))
    }
}
