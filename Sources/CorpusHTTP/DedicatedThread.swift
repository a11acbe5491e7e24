import Foundation

/// Blocking work (a libcurl transfer) run from async code on a thread of its own: the client's
/// transfers (`HTTPClient.offload`) and the object store's requests (`S3Client`).
public enum DedicatedThread {
    /// Runs `work` on a new thread named `name` and returns its result; cancelling the calling
    /// task sets the flag `work` is given, which a transfer polls to stop early.
    ///
    /// A thread of its own, not a Dispatch worker nor the cooperative pool: the work blocks for
    /// the whole transfer, and URLSession's own queues run on Dispatch's workers; with the few
    /// workers a 2-core machine gets, blocked transfers left URLSession none, and requests went
    /// unsent for seconds (seen in the suite over URLSession).
    public static func run<T: Sendable>(name: String, _ work: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, Error>) in
                let thread = Thread { cont.resume(with: Result { try work(flag) }) }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            flag.cancel()
        }
    }
}
