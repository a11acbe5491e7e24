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

extension HomeSnapshotting {
    /// Runs `body`, expecting a `SyncError` of `category` whose message is exactly `message`, and
    /// checks the home folder did not change.
    func expectRefusal<T>(category: SyncError.Category, message: String, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> T) async {
        let before = snapshot
        do {
            _ = try await body()
            Issue.record("expected the refusal \"\(message)\", but it succeeded", sourceLocation: sourceLocation)
        } catch let e as SyncError {
            #expect(e.category == category, "\(e)", sourceLocation: sourceLocation)
            #expect(e.description == message, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \"\(message)\", got \(error)", sourceLocation: sourceLocation)
        }
        let after = snapshot
        #expect(after == before, "home changed:\n\(before)\n---\n\(after)", sourceLocation: sourceLocation)
    }
}
