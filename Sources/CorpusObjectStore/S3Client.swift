import Foundation
import CorpusFormat
import CorpusHTTP

/// What a HEAD of an object says about it.
public struct ObjectInfo: Sendable, Equatable {
    public var size: Int64
    /// The SHA-256 this code stored with the object (`x-amz-meta-sha256`), if any.
    public var sha256: String?
    public var cacheControl: String?
}

/// How many times a request that may pass is asked, and how long is waited in between: the
/// client's schedule (`Backoff`, as `RetryPolicy` uses it), doubling from `firstDelay` up to
/// `maxDelay`, which keeps many attempts from turning into minutes of waiting.
public struct ObjectStoreRetry: Sendable {
    public var attempts: Int
    public var backoff: Backoff

    public init(attempts: Int = 4, firstDelay: Double = 0.5, maxDelay: Double = 8) {
        self.attempts = max(1, attempts)
        backoff = Backoff(initial: firstDelay, maximum: maxDelay)
    }

    /// Delays multiplied by `factor` (`CORPUS_RETRY_SCALE`: tests shrink them).
    public func scaled(by factor: Double) -> ObjectStoreRetry {
        var scaled = self
        scaled.backoff = backoff.scaled(by: factor)
        return scaled
    }
}

/// An S3 client over libcurl: HEAD, GET, PUT of a file, DELETE and listing, path-style, each
/// request signed by libcurl (`CURLOPT_AWS_SIGV4`). One request at a time per client, each on a
/// thread of its own (`DedicatedThread`: libcurl blocks for the whole transfer); the waits
/// between attempts hold no thread, and cancelling the calling task stops both.
public final class S3Client: @unchecked Sendable {
    // @unchecked: `connection` is only touched while `lock` is held.
    private let lock = NSLock()
    private let connection: S3Connection
    public let endpoint: S3Endpoint
    private let credentials: S3Credentials
    public var retry: ObjectStoreRetry
    public var timeouts: S3Timeouts

    /// One PUT of S3 holds at most this much.
    public static let maximumObjectSize: Int64 = 5 << 30

    public init(endpoint: S3Endpoint, credentials: S3Credentials, retry: ObjectStoreRetry = ObjectStoreRetry(),
                timeouts: S3Timeouts = S3Timeouts()) throws(ObjectStoreError) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.retry = retry
        self.timeouts = timeouts
        self.connection = try S3Connection()
    }

    /// HEAD: nil when the object does not exist.
    public func head(bucket: String, key: String) async throws(ObjectStoreError) -> ObjectInfo? {
        let (status, headers, _) = try await send(S3Request(method: .head, pathAndQuery: endpoint.objectPath(bucket: bucket, key: key)),
                                            operation: "HEAD", key: key, accept: [200, 404])
        guard status == 200 else { return nil }
        return ObjectInfo(size: headers["content-length"].flatMap { Int64($0) } ?? -1, sha256: headers["x-amz-meta-sha256"],
                          cacheControl: headers["cache-control"])
    }

    /// GET of a small object: nil when it does not exist.
    public func get(bucket: String, key: String, maxBytes: Int = 4 << 20) async throws(ObjectStoreError) -> Data? {
        var request = S3Request(method: .get, pathAndQuery: endpoint.objectPath(bucket: bucket, key: key))
        request.maxBodyBytes = maxBytes
        let (status, _, body) = try await send(request, operation: "GET", key: key, accept: [200, 404])
        return status == 200 ? body : nil
    }

    /// PUT of a file's bytes, which must hash to `sha256`: they are checked as they are sent, and
    /// a file that does not is refused (`contentMismatch`) before its last byte leaves, so no
    /// object is made (not every S3 server checks `x-amz-content-sha256`: SeaweedFS 4.48 does
    /// not). `sha256` is also kept as the object's `x-amz-meta-sha256` so a later upload can skip
    /// an identical object.
    public func put(bucket: String, key: String, file path: String, sha256: String, contentType: String,
                    cacheControl: String) async throws(ObjectStoreError) {
        let body = try S3UploadBody(path: path, sha256: sha256)
        guard body.length <= Self.maximumObjectSize else { throw .objectTooLarge(path: path, size: body.length) }
        let request = S3Request(method: .put, pathAndQuery: endpoint.objectPath(bucket: bucket, key: key),
                                headers: [("Content-Type", contentType), ("Cache-Control", cacheControl),
                                          ("x-amz-content-sha256", sha256), ("x-amz-meta-sha256", sha256)],
                                body: body)
        _ = try await send(request, operation: "PUT", key: key, accept: [200])
    }

    /// DELETE; deleting what is not there succeeds (S3 answers 204 either way).
    public func delete(bucket: String, key: String) async throws(ObjectStoreError) {
        _ = try await send(S3Request(method: .delete, pathAndQuery: endpoint.objectPath(bucket: bucket, key: key)),
                     operation: "DELETE", key: key, accept: [200, 204, 404])
    }

    /// PUT of a bucket (for setting one up; an existing bucket of the same owner is fine).
    public func createBucket(_ bucket: String) async throws(ObjectStoreError) {
        _ = try await send(S3Request(method: .put, pathAndQuery: "/" + SigV4.uriEncode(bucket), body: nil), operation: "create bucket",
                     key: bucket, accept: [200, 409])
    }

    /// Every key under `prefix` with its size (ListObjectsV2, page by page).
    public func list(bucket: String, prefix: String) async throws(ObjectStoreError) -> [(key: String, size: Int64)] {
        var out: [(key: String, size: Int64)] = []
        var token: String?
        repeat {
            // Sorted by name: libcurl signs the query exactly as given.
            var query = token.map { "continuation-token=\(SigV4.uriEncode($0))&" } ?? ""
            query += "list-type=2&prefix=\(SigV4.uriEncode(prefix))"
            let (_, _, body) = try await send(S3Request(method: .get, pathAndQuery: "/\(SigV4.uriEncode(bucket))?\(query)"),
                                        operation: "LIST", key: prefix, accept: [200])
            let page = ListBucketResult(xml: String(decoding: body, as: UTF8.self))
            out += page.objects
            token = page.nextToken
        } while token != nil
        return out
    }

    /// The status an anonymous GET of an object gets (no signature, no credentials): what any
    /// reader on the network would see.
    public func anonymousStatus(bucket: String, key: String) async throws(ObjectStoreError) -> Int {
        var request = S3Request(method: .get, pathAndQuery: endpoint.objectPath(bucket: bucket, key: key))
        request.maxBodyBytes = 64 << 10
        return try await send(request, operation: "anonymous GET", key: key, accept: Set(100..<600), signed: false).0
    }

    /// Sends a request, retrying what may pass; returns the answer when its status is in `accept`.
    private func send(_ request: S3Request, operation: String, key: String, accept: Set<Int>,
                      signed: Bool = true) async throws(ObjectStoreError) -> (Int, [String: String], Data) {
        var attempt = 0
        while true {
            attempt += 1
            let failure: ObjectStoreError
            switch await transfer(request, signed: signed) {
            case let .answered(status, headers, body) where accept.contains(status):
                return (status, headers, body)
            case let .answered(status, _, body):
                failure = .refused(operation: operation, key: key, status: status, code: Self.errorCode(body))
            case let .failed(reason):
                failure = .network(operation: operation, key: key, reason: reason)
            case let .contentMismatch(actual):
                failure = .contentMismatch(path: request.body?.path ?? key, expected: request.body?.sha256 ?? "", actual: actual)
            case let .httpLibrary(refusal):
                failure = .httpLibrary(operation: operation, key: key, refusal: refusal)
            case let .unsafeRequest(reason):
                failure = .unsafeRequest(operation: operation, key: key, reason: reason)
            case .cancelled:
                failure = .cancelled(operation: operation, key: key)
            }
            guard failure.isTransient, attempt < retry.attempts else { throw failure }
            do { try await retry.backoff.wait(afterAttempt: attempt) } catch { throw .cancelled(operation: operation, key: key) }
        }
    }

    /// One request, on a thread of its own; cancelling the calling task cuts the transfer.
    private func transfer(_ request: S3Request, signed: Bool) async -> S3Response {
        // The request (and its file body) is handed to the thread and not touched here until it returns.
        nonisolated(unsafe) let request = request
        let result = try? await DedicatedThread.run(name: "corpus.s3") { [self] flag in
            SendableResponse(lock.withLock {
                connection.perform(request, endpoint: endpoint, credentials: signed ? credentials : nil, timeouts: timeouts, cancellation: flag)
            })
        }
        return result?.response ?? .cancelled
    }

    /// `<Code>AccessDenied</Code>` of an S3 error document.
    static func errorCode(_ body: Data) -> String? {
        ListBucketResult.elements("Code", in: String(decoding: body.prefix(4096), as: UTF8.self)).first
    }
}

/// A response handed back from the transfer's thread, which no longer touches it.
private struct SendableResponse: @unchecked Sendable {
    let response: S3Response
    init(_ response: S3Response) { self.response = response }
}

/// The parts of a ListObjectsV2 answer this code reads. The keys it writes are plain ASCII paths;
/// XML's five predefined entities are decoded all the same.
struct ListBucketResult {
    var objects: [(key: String, size: Int64)] = []
    var nextToken: String?

    init(xml: String) {
        for contents in Self.elements("Contents", in: xml) {
            guard let key = Self.elements("Key", in: contents).first else { continue }
            objects.append((key, Self.elements("Size", in: contents).first.flatMap { Int64($0) } ?? -1))
        }
        if Self.elements("IsTruncated", in: xml).first == "true" { nextToken = Self.elements("NextContinuationToken", in: xml).first }
    }

    /// The text of every `<name>…</name>` in `xml`, entities decoded.
    static func elements(_ name: String, in xml: String) -> [String] {
        var out: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            out.append(decode(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return out
    }

    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
