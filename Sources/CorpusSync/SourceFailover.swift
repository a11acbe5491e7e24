import Foundation

/// The client's one retry-over-sources loop (docs/client.md "Failover and retries"): the origin,
/// then each mirror, each asked up to `retry.attemptsPerSource` times.
///
/// An attempt's failure decides what comes next:
/// - a transport failure that may pass (`TransportError.isTransient`) is retried on the same
///   source after a backoff; any other one (a 404, another 4xx) moves to the next source;
/// - a verification refusal (`SyncError` of category `.verification`) moves to the next source:
///   one source's tampering says nothing of the next;
/// - a log fork (`SyncError.logFork`) stops the loop: two notes signed by the log key that no
///   append-only log could both have signed are proof against the publisher, whichever source
///   served them, and another source's view must not hide it;
/// - a log checkpoint not cosigned yet (`SyncError.logNotCosigned`) moves to the next source, which
///   may already serve the cosigned one;
/// - cancellation, and any other error (a local failure), stops the loop at once.
///
/// When every source failed, the error is, in this order: the first verification refusal (a
/// tampered mirror behind a dead origin is tampering, not an outage: apt CVE-2018-0501); the first
/// checkpoint not cosigned yet (a source answered, with nothing acceptable yet); with
/// `originDecidesEntitlement`, the origin's 401 or 403; `notFound` when every source answered
/// 404; else `network(after:last:)` with the last transport failure.
public struct SourceFailover: Sendable {
    let retry: RetryPolicy
    /// True where requests carry the token (downloads): the origin, the only source that sees it,
    /// then gives the entitlement verdict.
    var originDecidesEntitlement = false
    /// Called before every attempt (a catalog refresh counts them for its deadline's message).
    var onAttempt: (@Sendable () -> Void)?

    public init(retry: RetryPolicy, originDecidesEntitlement: Bool = false, onAttempt: (@Sendable () -> Void)? = nil) {
        self.retry = retry
        self.originDecidesEntitlement = originDecidesEntitlement
        self.onAttempt = onAttempt
    }

    /// Thrown by an attempt to ask the same source again at once, once per source and without
    /// counting against its attempts; a second time on one source counts as `otherwise`. (A resumed
    /// download whose hash was wrong may have failed on an older partial's bytes, not the source's.)
    struct AgainAtOnce: Error {
        let otherwise: SyncError
    }

    /// The result of the first attempt that succeeds; `file` names what was asked for in `notFound`.
    public func first<T>(of sources: [Source], file: String, _ attempt: (Source) async throws -> T) async throws -> T {
        var tally = Tally()
        for source in sources {
            var number = 0
            var askedAgain = false
            while number < retry.attemptsPerSource {
                number += 1
                tally.attempts += 1
                onAttempt?()
                do {
                    return try await attempt(source)
                } catch let again as AgainAtOnce {
                    tally.allNotFound = false
                    if !askedAgain {
                        askedAgain = true
                        number -= 1
                        continue
                    }
                    tally.refused(again.otherwise)
                } catch {
                    guard try tally.record(error, from: source), number < retry.attemptsPerSource else { break }
                    try await retry.sleep(afterAttempt: number)
                    continue
                }
                break
            }
        }
        throw tally.verdict(file: file, originDecidesEntitlement: originDecidesEntitlement, anySource: !sources.isEmpty)
    }

    /// What the failed attempts said so far.
    private struct Tally {
        var attempts = 0
        var firstRefusal: SyncError?
        var notCosigned: SyncError?
        var lastTransport: TransportError?
        var allNotFound = true
        var originAuthStatus: Int?

        mutating func refused(_ e: SyncError) {
            allNotFound = false
            if firstRefusal == nil { firstRefusal = e }
        }

        /// Records one failure; true when the same source may be asked again. Rethrows what stops the loop.
        mutating func record(_ error: any Error, from source: Source) throws -> Bool {
            switch error {
            case TransportError.cancelled, SyncError.cancelled, is CancellationError:
                throw SyncError.cancelled
            case let TransportError.unsafeRequest(reason):
                // Not sent, and no other source would get a different request.
                throw SyncError.unsafeRequest(reason: reason)
            case let TransportError.httpLibrary(refusal):
                // Not sent, and this process's libcurl refuses the same option for every source.
                throw SyncError.httpLibrary(refusal)
            case let e as TransportError:
                lastTransport = e
                if e != .httpStatus(code: 404) { allNotFound = false }
                if source.isOrigin, case let .httpStatus(code) = e, code == 401 || code == 403 { originAuthStatus = code }
                return e.isTransient
            case let e as SyncError where e.isLogFork:
                throw e
            case let e as SyncError where e.category == .verification:
                refused(e)
                return false
            case let e as SyncError where e.isNotCosigned:
                allNotFound = false
                if notCosigned == nil { notCosigned = e }
                return false
            default:
                throw error
            }
        }

        func verdict(file: String, originDecidesEntitlement: Bool, anySource: Bool) -> SyncError {
            if let firstRefusal { return firstRefusal }
            if let notCosigned { return notCosigned }
            if originDecidesEntitlement {
                if originAuthStatus == 401 { return .entitlementRequired(file: file) }
                if originAuthStatus == 403 { return .entitlementDenied(file: file) }
            }
            if allNotFound && anySource { return .notFound(file: file) }
            return .network(after: attempts, last: lastTransport ?? .network(reason: "no sources"))
        }
    }
}
