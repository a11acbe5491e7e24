import Foundation
import Synchronization

/// Counters for `/metrics`, in the Prometheus text exposition format (version 0.0.4), and the
/// count of responses in flight a graceful stop waits on.
public final class ServerMetrics: Sendable {
    private struct Counters {
        var requests: [Int: Int] = [:]
        var bytesSent: Int64 = 0
        var gatedRefusals: [Int: Int] = [:]
        var openConnections = 0
        var responsesInFlight = 0
        /// A stop sleeps until `responsesInFlight` reaches 0.
        var drainAwaited = false
    }

    private let counters = Mutex(Counters())
    /// Outside `counters`: counted on the fastest path, where the lock showed.
    private let fileCacheHits = Atomic<Int>(0)
    /// Signalled when the last response in flight ends while a stop waits for that.
    private let drained = DispatchSemaphore(value: 0)

    public init() {}

    func connectionOpened() { counters.withLock { $0.openConnections += 1 } }
    func connectionClosed() { counters.withLock { $0.openConnections -= 1 } }
    func responseQueued() { counters.withLock { $0.responsesInFlight += 1 } }
    func fileCacheHit() { fileCacheHits.add(1, ordering: .relaxed) }

    /// A request finished: its status, the body bytes sent (0 when aborted), whether the gate refused
    /// it, and whether libmicrohttpd had taken its response (`responseQueued`).
    func requestCompleted(status: HTTPStatus, bytes: Int64, gatedRefusal: Bool, hadResponse: Bool) {
        let wake = counters.withLock {
            $0.requests[status.code, default: 0] += 1
            $0.bytesSent += bytes
            if gatedRefusal { $0.gatedRefusals[status.code, default: 0] += 1 }
            if hadResponse { $0.responsesInFlight -= 1 }
            guard $0.drainAwaited, $0.responsesInFlight == 0 else { return false }
            $0.drainAwaited = false
            return true
        }
        if wake { drained.signal() }
    }

    /// Sleeps until no response is in flight or `deadline` passes; true when none is.
    func waitUntilNoResponseInFlight(deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let idle = counters.withLock { c in
                if c.responsesInFlight == 0 { return true }
                c.drainAwaited = true
                return false
            }
            if idle { return true }
            guard ContinuousClock.now < deadline else { return false }
            drained.wait(until: deadline)
        }
    }

    public var openConnections: Int { counters.withLock { $0.openConnections } }
    /// Responses queued and not yet completed: the downloads a graceful stop waits for.
    public var responsesInFlight: Int { counters.withLock { $0.responsesInFlight } }

    public func requests(status: Int) -> Int { counters.withLock { $0.requests[status] ?? 0 } }
    /// Responses sent from `SmallFileCache` (a built response reused, the file not reopened).
    public var fileCacheHitCount: Int { fileCacheHits.load(ordering: .relaxed) }

    public func render() -> String {
        let c = counters.withLock { $0 }
        var out = "# HELP corpusd_requests_total Requests answered, by HTTP status.\n# TYPE corpusd_requests_total counter\n"
        for (status, n) in c.requests.sorted(by: { $0.key < $1.key }) { out += "corpusd_requests_total{status=\"\(status)\"} \(n)\n" }
        out += "# HELP corpusd_response_bytes_total Response body bytes sent in completed requests.\n# TYPE corpusd_response_bytes_total counter\n"
        out += "corpusd_response_bytes_total \(c.bytesSent)\n"
        out += "# HELP corpusd_gated_refusals_total Downloads of entitled bundles refused, by HTTP status.\n# TYPE corpusd_gated_refusals_total counter\n"
        for status in [HTTPStatus.unauthorized, .forbidden] {
            out += "corpusd_gated_refusals_total{status=\"\(status.code)\"} \(c.gatedRefusals[status.code] ?? 0)\n"
        }
        out += "# HELP corpusd_open_connections Client connections currently open.\n# TYPE corpusd_open_connections gauge\n"
        out += "corpusd_open_connections \(c.openConnections)\n"
        out += "# HELP corpusd_responses_in_flight Responses being sent.\n# TYPE corpusd_responses_in_flight gauge\n"
        out += "corpusd_responses_in_flight \(c.responsesInFlight)\n"
        out += "# HELP corpusd_file_cache_hits_total Small files answered from responses built before (the file unchanged).\n# TYPE corpusd_file_cache_hits_total counter\n"
        out += "corpusd_file_cache_hits_total \(fileCacheHitCount)\n"
        return out
    }
}
