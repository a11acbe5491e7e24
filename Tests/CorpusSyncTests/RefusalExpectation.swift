import Testing
import CorpusSync
import CorpusTestSupport
import Foundation

/// A test environment whose home folder can be snapshotted, so refusals can be checked to
/// change nothing.
protocol HomeSnapshotting {
    var snapshot: DirectorySnapshot { get }
}

extension HomeSnapshotting {
    /// Runs `body`, expecting exactly `expected`, and checks the home folder did not change.
    func expectRefusal<T>(_ expected: SyncError, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> T) async {
        await expectRefusal(described: "\(expected)", sourceLocation: sourceLocation, { e in
            #expect(e == expected, sourceLocation: sourceLocation)
        }, body)
    }

    /// Runs `body`, expecting exactly `expected`, and checks the home folder changed only by the
    /// files `kept` (home-relative paths) appearing: the valid root versions a refused refresh
    /// keeps (TUF §5.3.8).
    func expectRefusal<T>(_ expected: SyncError, keeping kept: [String], home: String, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> T) async {
        let isKept = { (rel: String) in kept.contains(rel) || rel == "trust" || kept.contains { $0.hasPrefix(rel + "/") } }
        for rel in kept { #expect(!FileManager.default.fileExists(atPath: "\(home)/\(rel)"), "\(rel) exists before", sourceLocation: sourceLocation) }
        await expectRefusal(described: "\(expected)", snapshot: {
            DirectorySnapshot(home, ignoring: { $0 == "locks" || $0.hasPrefix("locks/") || isKept($0) })
        }, sourceLocation: sourceLocation, { e in #expect(e == expected, sourceLocation: sourceLocation) }, body)
        for rel in kept { #expect(FileManager.default.fileExists(atPath: "\(home)/\(rel)"), "\(rel) was not kept", sourceLocation: sourceLocation) }
    }

    /// Runs `body`, expecting a `SyncError` of `category` whose message is exactly `message`, and
    /// checks the home folder did not change.
    func expectRefusal<T>(category: SyncError.Category, message: String, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> T) async {
        await expectRefusal(described: message, sourceLocation: sourceLocation, { e in
            #expect(e.category == category, "\(e)", sourceLocation: sourceLocation)
            #expect(e.description == message, sourceLocation: sourceLocation)
        }, body)
    }

    /// Runs `body`, expecting a `SyncError` that `check` accepts, and checks that `take` (default:
    /// the home's snapshot) is the same before and after.
    func expectRefusal<T>(described: String, snapshot take: (() -> DirectorySnapshot)? = nil, sourceLocation: SourceLocation,
                          _ check: (SyncError) -> Void, _ body: () async throws -> T) async {
        let shot = take ?? { snapshot }
        let before = shot()
        do {
            _ = try await body()
            Issue.record("expected the refusal \(described), but it succeeded", sourceLocation: sourceLocation)
        } catch let e as SyncError {
            check(e)
        } catch {
            Issue.record("expected \(described), got \(error)", sourceLocation: sourceLocation)
        }
        let after = shot()
        #expect(after == before, "home changed:\n\(before)\n---\n\(after)", sourceLocation: sourceLocation)
    }
}
