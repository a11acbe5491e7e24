import CorpusFormat
import Foundation

/// A bundle downloaded to `downloads/<sha256>.part` whose SHA-256 and size match the signed catalog.
/// The caller (the installer) unpacks it and then removes it with `Downloader.discard`.
///
/// Only the downloader makes one (after the hash and size matched), so an installer handed one
/// takes its digest and size as they were verified instead of hashing the file again.
public struct VerifiedDownload: Sendable, Equatable {
    public let path: String
    public let digest: SHA256Digest
    public let size: Int64
    /// Set when `path` is an encrypted payload whose plaintext `digest` and `size` describe: it is
    /// read through `AgePayloadReader`, never decrypted to a file (EncryptedBundleFetch.swift).
    public var payload: EncryptedDownload? = nil

    /// The partial download to discard once installed: the payload's when encrypted.
    var downloadDigest: SHA256Digest { payload?.digest ?? digest }
}

/// The payload side of an encrypted `VerifiedDownload`: its own SHA-256 (it was verified under
/// that) and the file key that opens it.
public struct EncryptedDownload: Sendable, Equatable {
    public let digest: SHA256Digest
    let key: AgeFileKey
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
        try await download(ref, from: sources, token: token, tap: nil, progress: progress)
    }

    /// `tap` sees the download's bytes in order as they are written (`DownloadTap`): an encrypted
    /// payload's plaintext is checked so while it downloads.
    func download(_ ref: BundleRef, from sources: [Source], token: String? = nil, tap: (any DownloadTap)?,
                  progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws -> VerifiedDownload {
        try Self.validate(ref)
        try prepare(ref)
        // A failure that received no byte leaves no trace (the home stays as it was).
        var succeeded = false
        defer { if !succeeded, (FileIO.fileSize(home.partial(sha256: ref.digest)) ?? 0) == 0 { discard(ref.digest) } }
        let done = try await SourceFailover(retry: retry, originDecidesEntitlement: true).first(of: sources, file: ref.path) { source in
            try await attempt(ref, source: source, token: source.isOrigin ? token : nil, tap: tap, progress: progress)
        }
        succeeded = true
        return done
    }

    /// Before any request: `downloads/` exists, a partial longer than the signed size (which can
    /// never become the bundle) is dropped, and what is left to fetch fits on the volume.
    private func prepare(_ ref: BundleRef) throws {
        do { try FileIO.createDirectory(home.downloads) } catch let e as FormatError { throw SyncError.from(e) }
        let existing = FileIO.fileSize(home.partial(sha256: ref.digest)) ?? 0
        if existing > ref.size { discard(ref.digest) }
        try FreeSpace.require(ref.size - min(existing, ref.size), at: home.downloads)
    }

    /// One attempt on one source, on an offloaded thread, with its failures in the loop's terms: a
    /// refusal discards the partial and is a `SyncError`; a resumed download whose hash was wrong
    /// is asked again from zero at once (the bad bytes may have been an older partial's).
    private func attempt(_ ref: BundleRef, source: Source, token: String?, tap: (any DownloadTap)?,
                         progress: (@Sendable (DownloadProgress) -> Void)?) async throws -> VerifiedDownload {
        do {
            return try await HTTPClient.offload { [self] flag in
                try self.attempt(ref, source: source, token: token, tap: tap, cancellation: flag, progress: progress)
            }
        } catch let e as AttemptFailure {
            discard(ref.digest)
            switch e {
            case let .hashMismatch(actual, resumed):
                let refusal = SyncError.hashMismatch(file: ref.path, expected: ref.digest.hex, actual: actual.hex)
                if resumed { throw SourceFailover.AgainAtOnce(otherwise: refusal) }
                throw refusal
            case let .sizeMismatch(actual):
                throw actual > ref.size ? SyncError.sizeExceeded(file: ref.path, limit: ref.size)
                    : SyncError.sizeMismatch(file: ref.path, expected: ref.size, actual: actual)
            case .badRange:
                // Asked again like any failure that may pass, from zero.
                throw TransportError.network(reason: "the server answered a range request inconsistently")
            }
        } catch TransportError.tooLarge {
            discard(ref.digest)
            throw SyncError.sizeExceeded(file: ref.path, limit: ref.size)
        }
    }

    /// Removes a bundle's partial or verified download and its metadata.
    public func discard(_ digest: SHA256Digest) {
        PartialDownload.discard(path: home.partial(sha256: digest), metaPath: home.partialMeta(sha256: digest))
    }

    // MARK: - One attempt (blocking, on an offloaded thread)

    enum AttemptFailure: Error {
        case hashMismatch(actual: SHA256Digest, resumed: Bool)
        /// The server's own headers give the file another size than the signed one.
        case sizeMismatch(actual: Int64)
        /// 416, or a 206 whose range is not the one asked for.
        case badRange
    }

    private func attempt(_ ref: BundleRef, source: Source, token: String?, tap: (any DownloadTap)?, cancellation: CancellationFlag,
                         progress: (@Sendable (DownloadProgress) -> Void)?) throws -> VerifiedDownload {
        let partPath = home.partial(sha256: ref.digest)
        let metaPath = home.partialMeta(sha256: ref.digest)
        let url = source.url(for: ref.path)
        let file = try PartialDownload(path: partPath, metaPath: metaPath, tap: tap)
        let verified = VerifiedDownload(path: partPath, digest: ref.digest, size: ref.size)

        if file.size > ref.size { try file.restart() }
        if file.size == ref.size {
            // A complete partial (a crash after the last byte): the hash decides, no request needed.
            let actual = try file.finish()
            guard actual == ref.digest else { throw AttemptFailure.hashMismatch(actual: actual, resumed: true) }
            return verified
        }
        let resumedFrom = file.size
        let request = HTTPRequest(url: url, headers: Self.resumeHeaders(from: resumedFrom, url: url, metaPath: metaPath),
                                  bearerToken: token, maxBodyBytes: ref.size, storageOrigins: source.storageOrigins)
        let report = TransferReport(progress, total: ref.size, source: source.baseURL, interval: progressInterval)

        // HTTPClient caps the body at the whole size (a 200 may answer the range request);
        // onBody enforces the exact cap, counting the resumed bytes: byte size+1 aborts.
        try client.perform(request, cancellation: cancellation, onHead: { head in
            try Self.accept(head, resumedFrom: resumedFrom, size: ref.size, file: file)
            try file.saveMeta(PartialMeta(url: url, etag: head.etag, lastModified: head.lastModified))
            return true
        }, onBody: { chunk in
            guard file.size + Int64(chunk.count) <= ref.size else { throw TransportError.tooLarge(limit: ref.size) }
            try file.append(chunk)
            report.received(chunk.count, done: file.size, force: false)
        })
        report.received(0, done: file.size, force: true)
        guard file.size == ref.size else {
            // The server ended the body early without an error (no Content-Length): resumable.
            throw TransportError.network(reason: "the body ended after \(file.size) of \(ref.size) bytes")
        }
        let actual = try file.finish()
        guard actual == ref.digest else { throw AttemptFailure.hashMismatch(actual: actual, resumed: resumedFrom > 0) }
        return verified
    }

    /// `Range` for a partial of `resumedFrom` bytes, and `If-Range` when the partial came from
    /// this very URL (validators from one server mean nothing to another).
    private static func resumeHeaders(from resumedFrom: Int64, url: String, metaPath: String) -> [String: String] {
        guard resumedFrom > 0 else { return [:] }
        var headers = ["Range": "bytes=\(resumedFrom)-"]
        if let meta = PartialDownload.loadMeta(metaPath), meta.url == url, let validator = meta.ifRange {
            headers["If-Range"] = validator
        }
        return headers
    }

    /// Judges the response head against the request: a 200 of the signed size restarts the
    /// partial, a 206 must start where the partial ends; anything else is a failure.
    private static func accept(_ head: HTTPResponseHead, resumedFrom: Int64, size: Int64, file: PartialDownload) throws {
        switch head.status {
        case 200:
            if let length = head.contentLength, length != size { throw AttemptFailure.sizeMismatch(actual: length) }
            // The server ignored the range (or If-Range did not match): start over.
            if file.size > 0 { try file.restart() }
        case 206:
            guard resumedFrom > 0, let range = head.contentRange, range.first == resumedFrom else { throw AttemptFailure.badRange }
            if let total = range.total, total != size { throw AttemptFailure.sizeMismatch(actual: total) }
        case 416:
            throw AttemptFailure.badRange
        default:
            throw TransportError.httpStatus(code: head.status)
        }
    }

    /// The digest is well formed by its type (`SHA256Digest`); the path and size are checked here.
    static func validate(_ ref: BundleRef) throws {
        guard TreePath.isSafe(ref.path) else { throw SyncError.malformed(what: "bundle reference", reason: "unsafe path \(ref.path.debugDescription)") }
        guard ref.size > 0 else { throw SyncError.malformed(what: "bundle reference", reason: "size must be positive") }
    }
}

/// Progress of one transfer, reported at most every `interval` seconds (and once at the end):
/// bytes done of the whole file, this attempt's rate, and the time left at that rate.
private final class TransferReport {
    private let progress: (@Sendable (DownloadProgress) -> Void)?
    private let total: Int64
    private let source: String
    private let interval: Double
    private let started = DispatchTime.now().uptimeNanoseconds
    private var lastReport: UInt64 = 0
    private var sessionBytes: Int64 = 0

    init(_ progress: (@Sendable (DownloadProgress) -> Void)?, total: Int64, source: String, interval: Double) {
        self.progress = progress
        self.total = total
        self.source = source
        self.interval = interval
    }

    func received(_ bytes: Int, done: Int64, force: Bool) {
        sessionBytes += Int64(bytes)
        guard let progress else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || Double(now - lastReport) / 1e9 >= interval else { return }
        lastReport = now
        let elapsed = Double(now - started) / 1e9
        let rate = elapsed > 0 ? Double(sessionBytes) / elapsed : 0
        progress(DownloadProgress(bytesDone: done, total: total, bytesPerSecond: rate,
                                  eta: rate > 0 ? Double(total - done) / rate : nil, source: source))
    }
}
