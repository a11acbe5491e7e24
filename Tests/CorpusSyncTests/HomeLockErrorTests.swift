import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// Every lock the client takes in `HOME/locks` reports its failures in the client's own terms:
/// a held lock as `lockHeld`, any other failure as `SyncError.io`, never a format-layer error.
@Suite struct HomeLockErrorTests {
    /// The corpus lock and the import lock used to let the format layer's `FormatError` through
    /// when the lock file could not be opened, while the other locks mapped it.
    @Test func aCorpusLockThatCannotBeOpenedIsAClientIOError() async throws {
        let env = try ClientTestEnvironment()
        try env.home.createFolders()
        let path = env.home.lockFile("corpus-main.tides")
        // A folder where the lock file should be: open(O_RDWR) fails with EISDIR.
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let installer = Installer(home: env.home)
        await env.expectRefusal(.io(operation: "open", path: path, errno: EISDIR)) {
            try installer.corpusLock(remote: "main", id: "tides", wait: .no)
        }
    }

    @Test func aHeldCorpusLockIsLockHeld() async throws {
        let env = try ClientTestEnvironment()
        try env.home.createFolders()
        let installer = Installer(home: env.home)
        let held = try installer.corpusLock(remote: "main", id: "tides", wait: .no)
        await env.expectRefusal(.lockHeld(path: env.home.lockFile("corpus-main.tides"))) {
            try installer.corpusLock(remote: "main", id: "tides", wait: .no)
        }
        withExtendedLifetime(held) {}
    }
}
