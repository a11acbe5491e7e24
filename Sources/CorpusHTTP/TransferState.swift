import Foundation

/// One hop's rules, whichever transport moves the bytes: when the head is delivered, what is
/// done with a redirect's or a refused response's body, the body cap, cancellation, stalls and
/// the low-speed limit. A transport feeds it the head (`header(_:)` line by line, or
/// `receivedHead(status:headers:)`), the body chunks (`body(_:)`) and progress ticks
/// (`progress(downloaded:)`), and stops the transfer when one of them returns false; `finish`
/// then gives the hop's outcome. Used from one thread at a time.
package final class TransferState {
    /// The statuses whose `Location` is a redirect the client may follow (`HTTPClient` decides).
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    package let url: String
    package let cap: Int64
    package let stallTimeout: Double
    package let minimumBytesPerSecond: Double
    package let cancellation: CancellationFlag?
    /// The cap shared with every other transfer of the command (`RateLimit`); nil: none.
    package let rateLimit: RateLimit?
    package let onHead: (HTTPResponseHead) throws -> Bool
    package let onBody: (UnsafeRawBufferPointer) throws -> Void

    package var status = 0
    package var headers: [String: String] = [:]
    package var headDelivered = false
    var isRedirect = false
    /// The head was refused (`onHead` threw) and the small body is being read and dropped.
    var isRefused = false
    /// Bytes of a redirect's or a refused response's body read and dropped.
    var discardedBodyBytes = 0
    /// How much of a body that is never delivered (a redirect's, a refused response's) is read
    /// to keep the connection: libcurl closes a connection whose transfer stops mid-body, so a
    /// tree's 404 for the next root key would otherwise cost the bundle download a new connection.
    static let discardLimit = 64 * 1024
    var wantsBody = true
    package var stoppedQuietly = false
    package var failure: Error?
    var received: Int64 = 0
    /// 0 from the start, so the first progress report (which may come late on a loaded machine)
    /// does not restart the stall clock: silence is counted from the transfer's start.
    var lastProgressBytes: Int64 = 0
    var lastProgressTime = DispatchTime.now().uptimeNanoseconds
    var windowStart = DispatchTime.now().uptimeNanoseconds
    var windowStartBytes: Int64 = 0

    package init(url: String, cap: Int64, stallTimeout: Double, minimumBytesPerSecond: Double, cancellation: CancellationFlag?,
         rateLimit: RateLimit? = nil,
         onHead: @escaping (HTTPResponseHead) throws -> Bool, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.url = url
        self.cap = cap
        self.stallTimeout = stallTimeout
        // Under a cap shared by several transfers, each may get a small share of it: the low-speed
        // limit then applies to a sixteenth of the cap at most, so the user's own limit never
        // reads as a server trickling bytes.
        self.minimumBytesPerSecond = rateLimit.map { min(minimumBytesPerSecond, Double($0.bytesPerSecond) / 16) } ?? minimumBytesPerSecond
        self.cancellation = cancellation
        self.rateLimit = rateLimit
        self.onHead = onHead
        self.onBody = onBody
    }

    /// One raw header line (libcurl's header callback: status lines included).
    package func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            // A new response (after 1xx or a redirect): forget the previous one's headers.
            headers = [:]
            let parts = trimmed.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].lowercased()
            headers[name] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// A whole head at once (URLSession's response), names in any case.
    package func receivedHead(status: Int, headers: [String: String]) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Returns false to make the transport stop the transfer.
    package func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if isRedirect || isRefused {
            // Never delivered; reading a small one keeps the connection reusable.
            discardedBodyBytes += chunk.count
            guard discardedBodyBytes <= Self.discardLimit else {
                if isRedirect { stoppedQuietly = true }
                return false
            }
            return true
        }
        if !headDelivered {
            if Self.redirectStatuses.contains(status) && headers["location"] != nil {
                isRedirect = true
                return body(chunk)
            }
            headDelivered = true
            do {
                wantsBody = try onHead(HTTPResponseHead(status: status, headers: headers, url: url))
            } catch {
                failure = error
                // The refusal stands either way; a body declared small is read to its end first.
                guard let length = headers["content-length"].flatMap(Int.init), length <= Self.discardLimit else { return false }
                isRefused = true
                return body(chunk)
            }
            if !wantsBody {
                stoppedQuietly = true
                return false
            }
        }
        guard received + Int64(chunk.count) <= cap else {
            failure = TransportError.tooLarge(limit: cap)
            return false
        }
        received += Int64(chunk.count)
        if let rateLimit, !rateLimit.pace(chunk.count, cancellation: cancellation) {
            failure = TransportError.cancelled
            return false
        }
        do {
            try onBody(chunk)
        } catch {
            failure = error
            return false
        }
        return true
    }

    /// Returns false to abort: cancelled, no byte for `stallTimeout`, or fewer than
    /// `minimumBytesPerSecond` on average over a `stallTimeout` window.
    package func progress(downloaded: Int64) -> Bool {
        if cancellation?.isCancelled == true {
            failure = TransportError.cancelled
            return false
        }
        let now = DispatchTime.now().uptimeNanoseconds
        if downloaded != lastProgressBytes {
            lastProgressBytes = downloaded
            lastProgressTime = now
        } else if Double(now - lastProgressTime) / 1e9 > stallTimeout {
            failure = TransportError.stalled(seconds: stallTimeout)
            return false
        }
        let window = Double(now - windowStart) / 1e9
        if window >= stallTimeout {
            if Double(downloaded - windowStartBytes) < minimumBytesPerSecond * window {
                // Bytes still coming: too slow. Silent for half the window already: a stall in the
                // making, which the check above reports as one within the other half.
                guard Double(now - lastProgressTime) / 1e9 >= stallTimeout / 2 else {
                    failure = TransportError.tooSlow(minimumBytesPerSecond: minimumBytesPerSecond, seconds: stallTimeout)
                    return false
                }
                return true
            }
            windowStart = now
            windowStartBytes = downloaded
        }
        return true
    }
}

extension TransferState {
    /// The hop's outcome once the transport is done: the failure a callback recorded, else the
    /// transport's own error (`transportError`, nil when it finished cleanly or was stopped on
    /// purpose), else the head, or the redirect it names.
    package func finish(transportError: @autoclosure () -> TransportError?) throws -> HTTPHop {
        if let failure { throw failure }
        if !stoppedQuietly, let error = transportError() { throw error }
        let head = HTTPResponseHead(status: status, headers: headers, url: url)
        if Self.redirectStatuses.contains(head.status), let location = head["location"] {
            // Resolved here rather than by the transport, which leaves it unset when a transfer was stopped.
            guard let target = URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString else {
                throw TransportError.redirectRefused(reason: "cannot parse the redirect target")
            }
            return .redirect(target)
        }
        if !headDelivered { _ = try onHead(head) }
        return .done(head)
    }
}
