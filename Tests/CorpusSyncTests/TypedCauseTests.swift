import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// Errors of another layer are carried as they were thrown, not flattened into a string: the
/// pack check's `EngineError` inside `unsafePack`, and an error no case describes inside
/// `unexpected` (an unknown failure is not reported as unsafe input).
@Suite struct TypedCauseTests {
    /// `verify` (and the damage check of `install`/`sync`) reports what the engine refused, typed.
    @Test func verifyCarriesTheEnginesRefusalOfAJournalBesideThePack() async throws {
        let env = try ClientTestEnvironment()
        let tides = try env.bundle(id: "tides", version: "1", words: "ebb")
        try env.publish([try env.entry(tides)])
        _ = try await env.client.install([WantedCorpus(id: "tides")])
        let dir = env.home.versionDirectory(remote: "main", id: "tides", version: "1")
        // Not a member of the manifest, so every signed hash still holds; SQLite would replay it.
        try Data("journal".utf8).write(to: URL(fileURLWithPath: "\(dir)/pack.sqlite-journal"))

        let outcome = try #require(try env.client.verify(nil).first)
        #expect(outcome.error == .unsafePack(corpus: "main/tides", cause: .packHasJournal(corpus: "main/tides", file: "pack.sqlite-journal")),
                "\(String(describing: outcome.error))")
        #expect(outcome.error?.description == "the pack of main/tides is not safe to search: main/tides: pack.sqlite-journal exists next to pack.sqlite; a pack is opened only without a journal or WAL beside it")
    }

    struct SomethingElse: Error, CustomStringConvertible {
        var description: String { "something else went wrong" }
    }

    @Test func anErrorOfAnotherKindIsCarriedAsItWasThrown() throws {
        let e = SyncError.carrying(SomethingElse(), what: "main/tides")
        guard case let .unexpected(what, cause) = e else {
            Issue.record("expected .unexpected, got \(e)")
            return
        }
        #expect(what == "main/tides")
        #expect(cause.error is SomethingElse)
        #expect(e.description == "main/tides: something else went wrong")
        #expect(e.category == .failure)
        // Errors with a meaning of their own keep it.
        #expect(SyncError.carrying(SyncError.lockHeld(path: "/l"), what: "x") == .lockHeld(path: "/l"))
        #expect(SyncError.carrying(FormatError.io(operation: "open", path: "/p", errno: ENOSPC), what: "x") == .io(operation: "open", path: "/p", errno: ENOSPC))
        #expect(SyncError.carrying(CancellationError(), what: "x") == .cancelled)
        #expect(SyncError.carrying(EngineError.packHasJournal(corpus: "main/x", file: "pack.sqlite-wal"), what: "main/x")
                == .unsafePack(corpus: "main/x", cause: .packHasJournal(corpus: "main/x", file: "pack.sqlite-wal")))
        #expect(SyncError.carrying(EngineError.corpusNotFound("x"), what: "main/x") == .unexpected(what: "main/x", cause: UnderlyingError(EngineError.corpusNotFound("x"))))
    }
}
