import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CorpusURLSession

/// The URLSession transport's body cap, in its two parts, without a server: the mailbox takes
/// body chunks up to and including the one that crosses the cap and none after it, and the
/// delegate cancels the task on that chunk. An end-to-end transfer from an endless body
/// (`HTTPClientTests.anEndlessBodyIsCutAtTheCapWhileTheConsumerIsBusy`) catches either broken only
/// sometimes, and slowly: how far past the cap a server gets depends on the machine's load.
@Suite struct SessionMailboxCapTests {
    static func sizes(_ events: [SessionEvent]) -> [Int] {
        events.compactMap { if case let .data(d) = $0 { d.count } else { nil } }
    }

    @Test func theMailboxTakesChunksUpToTheOneCrossingTheCapAndNoneAfter() {
        let mailbox = SessionMailbox(limit: 10)
        #expect(mailbox.postData(Data(count: 4)))
        #expect(mailbox.postData(Data(count: 6)), "10 bytes of 10 is not past the cap")
        #expect(!mailbox.postData(Data(count: 1)), "the chunk that crosses the cap must stop the task")
        #expect(mailbox.waitingBytes == 11)
        // What a task that reads on after its cancel delivers is dropped, and asks for no second cancel.
        #expect(mailbox.postData(Data(count: 5)))
        #expect(mailbox.postData(Data(count: 1 << 20)))
        #expect(mailbox.waitingBytes == 11)
        mailbox.post(.done(nil))
        let taken = mailbox.take(waiting: 0)
        #expect(Self.sizes(taken) == [4, 6, 1], "the transfer learns of the excess from the crossing chunk, and gets nothing after it")
        if case .done? = taken.last {} else { Issue.record("the completion after the cap was not delivered: \(taken)") }
        #expect(mailbox.waitingBytes == 0)
        #expect(mailbox.postData(Data(count: 1)))
        #expect(mailbox.take(waiting: 0).isEmpty, "taking the chunks does not make room past the cap")
    }

    /// A real task of a real session, never resumed (nothing is sent): a suspended task's
    /// `cancel()` makes it `.canceling` at once, on Apple platforms and in FoundationNetworking.
    @Test func theDelegateCancelsTheTaskOnTheChunkCrossingTheCap() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let events = SessionEvents()
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/catalog.json")))
        events.register(task.taskIdentifier, SessionMailbox(limit: 8))
        defer { events.unregister(task.taskIdentifier) }
        #expect(task.state == .suspended)
        events.urlSession(session, dataTask: task, didReceive: Data(count: 5))
        events.urlSession(session, dataTask: task, didReceive: Data(count: 3))
        #expect(task.state == .suspended, "8 bytes of 8 is not past the cap")
        events.urlSession(session, dataTask: task, didReceive: Data(count: 1))
        #expect(task.state == .canceling || task.state == .completed, "the task was not cancelled on the chunk crossing the cap (state \(task.state.rawValue))")
    }
}
