import Foundation

extension CorpusClient {
    /// One event of an install or sync as a stream: progress while it runs, then the report (its
    /// outcomes, and the catalogs that could not be refreshed).
    public enum Event: Sendable {
        case progress(Progress)
        case finished(OperationReport)
    }

    /// `install` as an `AsyncThrowingStream`, for an app whose progress view iterates events
    /// rather than passing a callback. The stream ends after `.finished`, or throws what the
    /// install threw. Ending the iteration early (the view goes away) cancels the install; what
    /// is installed stays installed, a partial download stays for the next run to resume.
    public func installEvents(_ wanted: [WantedCorpus]) -> AsyncThrowingStream<Event, any Error> {
        Self.events { progress in try await install(wanted, progress: progress) }
    }

    /// `sync` as an `AsyncThrowingStream`; see `installEvents`.
    public func syncEvents(wanted: [WantedCorpus]?, prune: Bool) -> AsyncThrowingStream<Event, any Error> {
        Self.events { progress in try await sync(wanted: wanted, prune: prune, progress: progress) }
    }

    /// Keeps the newest 256 events when the consumer falls behind: download progress comes in
    /// often and a late reader wants the latest, and `.finished`, yielded last, is never dropped.
    private static func events(_ run: @escaping @Sendable (@escaping @Sendable (Progress) -> Void) async throws -> OperationReport)
        -> AsyncThrowingStream<Event, any Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(256)) { continuation in
            let task = Task {
                do {
                    let outcomes = try await run { continuation.yield(.progress($0)) }
                    continuation.yield(.finished(outcomes))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
