import Testing
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// "23788 bytes needed, 819200 available" read as a contradiction: the margin was hidden.
@Suite struct FreeSpaceMessageTests {
    @Test func theRefusalNamesTheMarginItAddsToWhatIsNeeded() throws {
        let dir = TempDirectory("free-space")
        let available = try FreeSpace.available(at: dir.path)
        // Fits without the margin, not with it (1 GiB of margin beats any churn on the volume meanwhile).
        let needed = max(1, available - (512 << 20))
        do {
            try FreeSpace.require(needed, at: dir.path, margin: 1 << 30)
            Issue.record("expected insufficientSpace")
        } catch let e as SyncError {
            let text = e.description
            #expect(text.hasPrefix("not enough free space in \(dir.path): needs \(needed) bytes plus a margin of 1073741824 bytes for the file system; "), "\(text)")
            #expect(text.hasSuffix(" bytes available"), "\(text)")
            #expect(e.category == .localIO)
        }
    }
}
