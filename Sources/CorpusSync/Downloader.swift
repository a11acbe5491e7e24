import CorpusFormat
import Foundation

/// A bundle downloaded to `downloads/<sha256>.part` whose SHA-256 and size match the signed catalog.
/// The caller (the installer) unpacks it and then removes it with `Downloader.discard`.
public struct VerifiedDownload: Sendable, Equatable {
    public var path: String
    public var digest: SHA256Digest
    public var size: Int64
}

/// Downloads bundles named by a signed catalog, resumably, across the origin and its mirrors.
///
/// - Checks free space on the downloads volume first.
/// - Resumes `downloads/<sha256>.part` with `Range` (+ `If-Range` when the partial came from the
///   same URL); a 200 restarts from zero, a 416 or a lying `Content-Range` discards the partial.
/// - The signed size is a hard cap: byte size+1 aborts the transfer and discards the partial.
/// - Hashes while writing; the final SHA-256 decides. A mismatch discards the partial and moves to
///   the next source (after one retry from zero when the mismatch followed a resume).
/// - Transient failures (network, stall, 5xx, 408, 429) are retried on the same source with
///   exponential backoff, keeping the partial; then the next source resumes it.
/// - The bearer token goes only to a source marked `isOrigin`, and `HTTPClient` drops it on a
///   redirect to another origin.
/// When every source failed, a verification refusal (exit-3 class) wins over a network error.
public struct Downloader: Sendable {
    public let home: HomeLayout
    public let client: HTTPClient
    public var retry: RetryPolicy
    /// Seconds between progress callbacks, at most.
    public var progressInterval: Double = 0.1

    public init(home: HomeLayout, client: HTTPClient, retry: RetryPolicy = RetryPolicy()) {
        self.home = home
        self.client = client
        self.retry = retry
    }

    public func download(_ ref: BundleRef, from sources: [Source], token: String? = nil,
                         progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws -> VerifiedDownload {
        try Self.validate(ref)
        let part = home.partial(sha256: ref.digest.hex)
        let meta = home.partialMeta(sha256: ref.digest.hex)
        do { try FileIO.createDirectory(home.downloads) } catch let e as FormatError { throw SyncError.from(e) }

        // A partial longer than the signed size can never become the bundle.
        let existing = FileIO.fileSize(part) ?? 0
        if existing > ref.size { PartialDownload.discard(path: part, metaPath: meta) }
        try FreeSpace.require(ref.size - min(existing, ref.size), at: home.downloads)

        // A failure that received no byte leaves no trace (the home stays as it was).
        var succeeded = false
        defer {
            if !succeeded, (FileIO.fileSize(part) ?? 0) == 0 { PartialDownload.discard(path: part, metaPath: meta) }
        }
        var firstRefusal: SyncError?
        var lastTransport: TransportError?
        var attempts = 0
        var allNotFound = true
        var originAuthStatus: Int?
        for source in sources {
            var attempt = 0
            var retriedFromZero = false
            while attempt < retry.attemptsPerSource {
                attempt += 1
                attempts += 1
                let bearer = source.isOrigin ? token : nil
                do {
                    let done = try await HTTPClient.offload { [self] flag in
                        try self.attempt(ref, source: source, token: bearer, cancellation: flag, progress: progress)
                    }
                    succeeded = true
                    return done
                } catch let e as AttemptFailure {
                    allNotFound = false
                    switch e {
                    case let .hashMismatch(actual, resumed):
                        PartialDownload.discard(path: part, metaPath: meta)
                        // Bad bytes may have come from an older partial, not from this source: try once from zero.
                        if resumed && !retriedFromZero {
                            retriedFromZero = true
                            attempt -= 1
                            continue
                        }
                        if firstRefusal == nil { firstRefusal = .hashMismatch(file: ref.path, expected: ref.digest.hex, actual: actual.hex) }
                    case let .sizeMismatch(actual):
                        PartialDownload.discard(path: part, metaPath: meta)
                        if firstRefusal == nil {
                            firstRefusal = actual > ref.size ? .sizeExceeded(file: ref.path, limit: ref.size)
                                : .sizeMismatch(file: ref.path, expected: ref.size, actual: actual)
                        }
                    case .badRange:
                        PartialDownload.discard(path: part, metaPath: meta)
                        lastTransport = .network(reason: "the server answered a range request inconsistently")
                        if attempt < retry.attemptsPerSource { try await retry.sleep(afterAttempt: attempt); continue }
                    }
                    break
                } catch let e as TransportError {
                    switch e {
                    case .cancelled:
                        throw SyncError.cancelled
                    case .tooLarge:
                        PartialDownload.discard(path: part, metaPath: meta)
                        allNotFound = false
                        if firstRefusal == nil { firstRefusal = .sizeExceeded(file: ref.path, limit: ref.size) }
                    default:
                        lastTransport = e
                        if e != .httpStatus(code: 404) { allNotFound = false }
                        if source.isOrigin, case let .httpStatus(code) = e, code == 401 || code == 403 { originAuthStatus = code }
                        if e.isTransient && attempt < retry.attemptsPerSource {
                            try await retry.sleep(afterAttempt: attempt)
                            continue
                        }
                    }
                    break
                }
            }
        }
        if let firstRefusal { throw firstRefusal }
        // The origin is the only source that sees the token, so its 401/403 is the entitlement verdict.
        if originAuthStatus == 401 { throw SyncError.entitlementRequired(file: ref.path) }
        if originAuthStatus == 403 { throw SyncError.entitlementDenied(file: ref.path) }
        if allNotFound && !sources.isEmpty { throw SyncError.notFound(file: ref.path) }
        throw SyncError.network(after: attempts, last: lastTransport ?? .network(reason: "no sources"))
    }

    /// Removes a bundle's partial or verified download and its metadata.
    public func discard(_ digest: SHA256Digest) {
        PartialDownload.discard(path: home.partial(sha256: digest.hex), metaPath: home.partialMeta(sha256: digest.hex))
    }

    /// `discard(_:)` for a digest in hex text; anything but 64 lower-case hex digits names no
    /// download and is ignored. Transitional: the mirror calls it while it moves to its own module.
    public func discard(sha256: String) {
        if let digest = SHA256Digest(hex: sha256) { discard(digest) }
    }

    // MARK: - One attempt (blocking, on an offloaded thread)

    enum AttemptFailure: Error {
        case hashMismatch(actual: SHA256Digest, resumed: Bool)
        /// The server's own headers give the file another size than the signed one.
        case sizeMismatch(actual: Int64)
        /// 416, or a 206 whose range is not the one asked for.
        case badRange
    }

    private func attempt(_ ref: BundleRef, source: Source, token: String?, cancellation: CancellationFlag,
                         progress: (@Sendable (DownloadProgress) -> Void)?) throws -> VerifiedDownload {
        let partPath = home.partial(sha256: ref.digest.hex)
        let metaPath = home.partialMeta(sha256: ref.digest.hex)
        let url = source.url(for: ref.path)
        let file = try PartialDownload(path: partPath, metaPath: metaPath)
        let verified = VerifiedDownload(path: partPath, digest: ref.digest, size: ref.size)

        if file.size > ref.size { try file.restart() }
        if file.size == ref.size {
            // A complete partial (a crash after the last byte): the hash decides, no request needed.
            let actual = try file.finish()
            guard actual == ref.digest else { throw AttemptFailure.hashMismatch(actual: actual, resumed: true) }
            return verified
        }

        let resumedFrom = file.size
        var headers: [String: String] = [:]
        if resumedFrom > 0 {
            headers["Range"] = "bytes=\(resumedFrom)-"
            if let meta = PartialDownload.loadMeta(metaPath), meta.url == url, let validator = meta.ifRange {
                headers["If-Range"] = validator
            }
        }
        let request = HTTPRequest(url: url, headers: headers, bearerToken: token, maxBodyBytes: ref.size)

        let started = DispatchTime.now().uptimeNanoseconds
        var lastReport: UInt64 = 0
        var sessionBytes: Int64 = 0
        func report(force: Bool) {
            guard let progress else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            guard force || Double(now - lastReport) / 1e9 >= progressInterval else { return }
            lastReport = now
            let elapsed = Double(now - started) / 1e9
            let rate = elapsed > 0 ? Double(sessionBytes) / elapsed : 0
            let left = ref.size - file.size
            progress(DownloadProgress(bytesDone: file.size, total: ref.size, bytesPerSecond: rate,
                                      eta: rate > 0 ? Double(left) / rate : nil, source: source.baseURL))
        }

        // HTTPClient caps the body at the whole size (a 200 may answer the range request);
        // onBody enforces the exact cap, counting the resumed bytes: byte size+1 aborts.
        try client.perform(request, cancellation: cancellation, onHead: { head in
            switch head.status {
            case 200:
                if let length = head.contentLength, length != ref.size { throw AttemptFailure.sizeMismatch(actual: length) }
                // The server ignored the range (or If-Range did not match): start over.
                if file.size > 0 { try file.restart() }
            case 206:
                guard resumedFrom > 0, let range = head.contentRange, range.first == resumedFrom else { throw AttemptFailure.badRange }
                if let total = range.total, total != ref.size { throw AttemptFailure.sizeMismatch(actual: total) }
            case 416:
                throw AttemptFailure.badRange
            default:
                throw TransportError.httpStatus(code: head.status)
            }
            try file.saveMeta(PartialMeta(url: url, etag: head.etag, lastModified: head.lastModified))
            return true
        }, onBody: { chunk in
            guard file.size + Int64(chunk.count) <= ref.size else { throw TransportError.tooLarge(limit: ref.size) }
            try file.append(chunk)
            sessionBytes += Int64(chunk.count)
            report(force: false)
        })
        report(force: true)
        guard file.size == ref.size else {
            // The server ended the body early without an error (no Content-Length): resumable.
            throw TransportError.network(reason: "the body ended after \(file.size) of \(ref.size) bytes")
        }
        let actual = try file.finish()
        guard actual == ref.digest else { throw AttemptFailure.hashMismatch(actual: actual, resumed: resumedFrom > 0) }
        return verified
    }

    /// The digest is well formed by its type (`SHA256Digest`); the path and size are checked here.
    static func validate(_ ref: BundleRef) throws {
        guard TreePath.isSafe(ref.path) else { throw SyncError.malformed(what: "bundle reference", reason: "unsafe path \(ref.path.debugDescription)") }
        guard ref.size > 0 else { throw SyncError.malformed(what: "bundle reference", reason: "size must be positive") }
    }
}
