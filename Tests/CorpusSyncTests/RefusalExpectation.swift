import Testing
import CorpusSync
import CorpusTestSupport

/// A test environment whose home folder can be snapshotted, so refusals can be checked to
/// change nothing.
protocol HomeSnapshotting {
    var snapshot: DirectorySnapshot { get }
}

extension HomeSnapshotting {
    /// Runs `body`, expecting exactly `expected`, and checks the home folder did not change.
    func expectRefusal<T>(_ expected: SyncError, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> T) async {
        let before = snapshot
        do {
            _ = try await body()
            Issue.record("expected \(expected), but it succeeded", sourceLocation: sourceLocation)
        } catch let e as SyncError {
            #expect(e == expected, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
        }
        let after = snapshot
        #expect(after == before, "home changed:\n\(before)\n---\n\(after)", sourceLocation: sourceLocation)
    }
}
