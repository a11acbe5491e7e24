import Foundation
import CorpusFormat
import CorpusHTTP
internal import CorpusCurl

/// S3 requests over one libcurl easy handle (the shared `CurlEasy`), every one signed by libcurl
/// itself with AWS Signature Version 4 (`CURLOPT_AWS_SIGV4`).
///
/// Not thread-safe: `S3Client` uses it under its lock. Reusing one handle keeps the connection
/// to the endpoint alive between objects.
final class S3Connection {
    private let easy: CurlEasy

    init() throws(ObjectStoreError) {
        do { easy = try CurlEasy() } catch { throw .network(operation: "start", key: "", reason: error.reason) }
    }

    /// One request, no retries. The secret goes to libcurl as the password it signs with and
    /// never into a URL or a header this code writes.
    /// `credentials` nil sends the request unsigned, as an anonymous reader would.
    /// A set `cancellation` stops the transfer at libcurl's next progress call.
    func perform(_ request: S3Request, endpoint: S3Endpoint, credentials: S3Credentials?, timeouts: S3Timeouts,
                 cancellation: CancellationFlag) -> S3Response {
        var lines = request.headers.map { "\($0.0): \($0.1)" }
        if let token = credentials?.sessionToken { lines.append("x-amz-security-token: \(token)") }
        // No "Expect:" line to turn off 100-continue: libcurl 7.88 signs the empty header it
        // then does not send, and the signature fails (S3 gateways answer 100 at once anyway).
        if let problem = Self.problem(url: endpoint.origin + request.pathAndQuery, headers: request.headers, credentials: credentials) {
            return .unsafeRequest(reason: problem)
        }
        let curlRequest = CurlRequest(url: endpoint.origin + request.pathAndQuery, headerLines: lines, userAgent: Self.userAgent,
                                      connectTimeout: timeouts.connect,
                                      // libcurl's default upload buffer (64 KiB), as `curl -T` uses it: each chunk is read,
                                      // hashed and sent while it is still in the CPU's cache. A 1 MiB buffer (set here
                                      // before) cost 40 % more system time per byte sent (256 MiB PUTs to SeaweedFS from a
                                      // libcurl probe: 0.25-0.28 s vs 0.15-0.19 s), which on shared cores is upload time.
                                      uploadLength: request.method == .put ? request.body?.length ?? 0 : nil,
                                      reportsProgress: true)
        let ctx = S3TransferContext(request: request, cancellation: cancellation)
        let outcome: CurlOutcome
        do {
            outcome = try easy.transfer(curlRequest, handler: ctx) { easy throws(CurlOptionError) in
                // A transfer slower than this for `stall` seconds is cut (and retried).
                try easy.set(.lowSpeedLimit, 1024)
                try easy.set(.lowSpeedTime, Int(timeouts.stall))
                if let credentials {
                    try easy.set(.awsSigV4, "aws:amz:\(endpoint.region):s3")
                    try easy.set(.userName, credentials.accessKeyID)
                    try easy.set(.password, credentials.secretAccessKey)
                }
                switch request.method {
                case .get, .put: break
                case .head: try easy.set(.noBody, 1)
                case .delete: try easy.set(.customRequest, "DELETE")
                }
            }
        } catch {
            // Nothing was sent: an unsigned request, or one without its method, is not this one.
            return .httpLibrary(error)
        }
        if cancellation.isCancelled { return .cancelled }
        if let actual = ctx.contentMismatch { return .contentMismatch(actual: actual) }
        if let failure = ctx.readFailure { return .failed(reason: failure) }
        switch outcome {
        case let .failed(_, reason): return .failed(reason: reason)
        case let .completed(status): return .answered(status: status, headers: ctx.headers, body: ctx.responseBody)
        }
    }
}

extension S3Connection {
    static let userAgent = ProductVersion.userAgent("corpusd")

    /// Why a request cannot be sent, checked before libcurl sees it: every value that reaches its
    /// head holds no control character (`RequestFieldCheck`, RFC 9110 §5.5), the credentials
    /// libcurl writes into it included. A CR LF in a session token or access key id would end its
    /// line and start a header of its own. The reason names the field, never its value.
    static func problem(url: String, headers: [(String, String)], credentials: S3Credentials?) -> String? {
        var fields = headers.map { (name: $0.0, value: $0.1) } + [(name: "User-Agent", value: userAgent)]
        if let token = credentials?.sessionToken { fields.append((name: "x-amz-security-token", value: token)) }
        if let p = RequestFieldCheck.problem(url: url, headers: fields) { return p }
        // libcurl writes `Authorization: AWS4-HMAC-SHA256 Credential=ID/DAY/REGION/s3/aws4_request, …`;
        // the region is already a-z 0-9 - (`S3Endpoint`).
        return credentials.flatMap { RequestFieldCheck.problem(value: $0.accessKeyID, describedAs: "the access key id (in the Authorization header)") }
    }
}

@available(*, unavailable)
extension S3Connection: Sendable {}

/// What one S3 request needs; the path is already encoded as SigV4 canonicalises it.
struct S3Request {
    enum Method { case get, head, put, delete }

    var method: Method
    /// `/BUCKET/KEY` or `/BUCKET?list-type=2&…` (query parameters sorted by name: libcurl 7.88
    /// signs the query as given).
    var pathAndQuery: String
    var headers: [(String, String)] = []
    var body: S3UploadBody?
    /// The most response body bytes kept (error documents, listings, small objects).
    var maxBodyBytes = 4 << 20
}

/// A file's bytes as a PUT body, read from its descriptor into libcurl's buffer, and the SHA-256
/// they must have: they are hashed as they are read, and the last read checks the digest before
/// libcurl gets the last bytes, so a file that is not what was promised never becomes an object.
final class S3UploadBody {
    let fd: Int32
    let length: Int64
    let path: String
    /// Lower-case hex, as sent in `x-amz-content-sha256`.
    let sha256: String

    init(path: String, sha256: String) throws(ObjectStoreError) {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .localFile(path: path, reason: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw .localFile(path: path, reason: String(cString: strerror(errno)))
        }
        self.fd = fd
        self.length = Int64(st.st_size)
        self.path = path
        self.sha256 = sha256
    }

    deinit { close(fd) }
}

@available(*, unavailable)
extension S3UploadBody: Sendable {}

enum S3Response {
    case answered(status: Int, headers: [String: String], body: Data)
    /// No HTTP answer: connection refused or reset, timeout, a local read failure.
    case failed(reason: String)
    /// The body's bytes hash to `actual`, not to the SHA-256 it was sent with; the request was
    /// cut before its last byte.
    case contentMismatch(actual: String)
    /// Not sent: libcurl refused an option the request needs.
    case httpLibrary(CurlOptionError)
    /// Not sent: a value of its head holds a control character (the reason names the field).
    case unsafeRequest(reason: String)
    /// The calling task was cancelled: the transfer was cut, or not started.
    case cancelled
}

/// The timeouts of every request.
public struct S3Timeouts: Sendable {
    public var connect: Double = 15
    /// Seconds below 1 KiB/s before a transfer is cut.
    public var stall: Double = 30

    public init(connect: Double = 15, stall: Double = 30) {
        self.connect = connect
        self.stall = stall
    }
}

/// Per-transfer state reached from libcurl's callbacks through an `Unmanaged` pointer.
private final class S3TransferContext: CurlTransferHandler {
    let request: S3Request
    var headers: [String: String] = [:]
    var responseBody = Data()
    var readOffset: Int64 = 0
    var readFailure: String?
    /// The digest of the body's bytes so far (nil without a body).
    private let digest: Digest?
    var contentMismatch: String?
    private var digestChecked = false

    private let cancellation: CancellationFlag

    init(request: S3Request, cancellation: CancellationFlag) {
        self.request = request
        self.cancellation = cancellation
        digest = request.body == nil ? nil : Digest(.sha256)
    }

    func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            headers = [:]
        } else if let colon = trimmed.firstIndex(of: ":") {
            headers[trimmed[..<colon].lowercased()] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// False makes libcurl stop (`CURLE_ABORTED_BY_CALLBACK`): the calling task was cancelled.
    func progress(downloaded: Int64) -> Bool { !cancellation.isCancelled }

    /// Returns false to make libcurl stop: the response body is larger than anything expected.
    func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard responseBody.count + chunk.count <= request.maxBodyBytes else { return false }
        responseBody.append(chunk.assumingMemoryBound(to: UInt8.self))
        return true
    }

    /// Fills libcurl's upload buffer from the file; `CURL_READFUNC_ABORT` on a read error, a
    /// file that shrank (the signed length would be a lie), or, at the last bytes, a digest that
    /// is not the promised one (the server then never has the whole body: no object is made).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let body = request.body, let digest, let start = buffer.baseAddress else { return 0 }
        let want = Int(min(Int64(buffer.count), body.length - readOffset))
        if want == 0 { return body.length == 0 && !digestMatches(body) ? CurlEasy.readAbort : 0 }
        let n = SystemCall.retrying { pread(body.fd, start, want, off_t(readOffset)) }
        guard n > 0 else {
            readFailure = n < 0 ? "reading \(body.path): \(String(cString: strerror(errno)))" : "\(body.path) became shorter while it was uploaded"
            return CurlEasy.readAbort
        }
        digest.update(UnsafeRawBufferPointer(start: start, count: n))
        readOffset += Int64(n)
        if readOffset == body.length, !digestMatches(body) { return CurlEasy.readAbort }
        return n
    }

    /// Once all the bytes were hashed: whether they are the promised ones (else notes the digest).
    private func digestMatches(_ body: S3UploadBody) -> Bool {
        guard let digest, !digestChecked else { return contentMismatch == nil }
        digestChecked = true
        let actual = Hex.encode(digest.finalize())
        if actual != body.sha256 { contentMismatch = actual }
        return contentMismatch == nil
    }
}
