import Foundation
import CorpusFormat
internal import CCurl
internal import CorpusCurl

/// S3 requests over one libcurl easy handle (the shared `CurlEasy`), every one signed by libcurl
/// itself with AWS Signature Version 4 (`CURLOPT_AWS_SIGV4`).
///
/// Not thread-safe: `S3Client` uses it under its lock. Reusing one handle keeps the connection
/// to the endpoint alive between objects.
final class S3Connection {
    private let easy: CurlEasy

    init() throws(ObjectStoreError) {
        do { easy = try CurlEasy() } catch {
            throw .network(operation: "start", key: "", reason: "libcurl could not create a handle")
        }
    }

    /// One request, no retries. The secret goes to libcurl as the password it signs with and
    /// never into a URL or a header this code writes.
    /// `credentials` nil sends the request unsigned, as an anonymous reader would.
    func perform(_ request: S3Request, endpoint: S3Endpoint, credentials: S3Credentials?, timeouts: S3Timeouts) -> S3Response {
        let ctx = S3TransferContext(request: request)
        easy.reset()
        easy.set(CURLOPT_URL, endpoint.origin + request.pathAndQuery)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 0)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_USERAGENT, "corpusd/1")
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(timeouts.connect * 1000))
        // A transfer slower than this for `stall` seconds is cut (and retried).
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1024)
        easy.set(CURLOPT_LOW_SPEED_TIME, Int(timeouts.stall))
        if let credentials {
            easy.set(CURLOPT_AWS_SIGV4, "aws:amz:\(endpoint.region):s3")
            easy.set(CURLOPT_USERNAME, credentials.accessKeyID)
            easy.set(CURLOPT_PASSWORD, credentials.secretAccessKey)
        }

        var lines = request.headers.map { "\($0.0): \($0.1)" }
        if let token = credentials?.sessionToken { lines.append("x-amz-security-token: \(token)") }
        // No "Expect:" line to turn off 100-continue: libcurl 7.88 signs the empty header it
        // then does not send, and the signature fails (S3 gateways answer 100 at once anyway).
        let headerList = CurlHeaderList(lines)
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(headerList.list))
        defer { withExtendedLifetime(headerList) {} } // libcurl reads the list during perform

        switch request.method {
        case .get: break
        case .head: easy.set(CURLOPT_NOBODY, 1)
        case .delete: easy.set(CURLOPT_CUSTOMREQUEST, "DELETE")
        case .put:
            easy.set(CURLOPT_UPLOAD, 1)
            easy.set(CURLOPT_INFILESIZE_LARGE, offset: request.body?.length ?? 0)
            // libcurl's default upload buffer (64 KiB), as `curl -T` uses it: each chunk is read,
            // hashed and sent while it is still in the CPU's cache. A 1 MiB buffer (set here
            // before) cost 40 % more system time per byte sent (256 MiB PUTs to SeaweedFS from a
            // libcurl probe: 0.25-0.28 s vs 0.15-0.19 s), which on shared cores is upload time.
            easy.set(CURLOPT_READFUNCTION, write: s3ReadCallback)
        }
        easy.set(CURLOPT_HEADERFUNCTION, write: s3HeaderCallback)
        easy.set(CURLOPT_WRITEFUNCTION, write: s3WriteCallback)

        let unmanaged = Unmanaged.passRetained(ctx)
        defer { unmanaged.release() }
        let opaque = UnsafeRawPointer(unmanaged.toOpaque())
        for option in [CURLOPT_HEADERDATA, CURLOPT_WRITEDATA, CURLOPT_READDATA] { easy.set(option, pointer: opaque) }

        var errorBuffer = [CChar](repeating: 0, count: 256) // CURL_ERROR_SIZE
        let code = errorBuffer.withUnsafeMutableBufferPointer { buf -> CURLcode in
            easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(buf.baseAddress))
            defer { easy.set(CURLOPT_ERRORBUFFER, pointer: nil) }
            return easy.perform()
        }
        if let actual = ctx.contentMismatch { return .contentMismatch(actual: actual) }
        if let failure = ctx.readFailure { return .failed(reason: failure) }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failed(reason: detail.isEmpty ? CurlEasy.describe(code) : detail)
        }
        return .answered(status: easy.responseCode, headers: ctx.headers, body: ctx.body)
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
private final class S3TransferContext {
    let request: S3Request
    var headers: [String: String] = [:]
    var body = Data()
    var readOffset: Int64 = 0
    var readFailure: String?
    /// The digest of the body's bytes so far (nil without a body).
    private let digest: Digest?
    var contentMismatch: String?
    private var digestChecked = false

    init(request: S3Request) {
        self.request = request
        digest = request.body == nil ? nil : Digest(.sha256)
    }

    static func from(_ p: UnsafeMutableRawPointer?) -> S3TransferContext {
        Unmanaged<S3TransferContext>.fromOpaque(p!).takeUnretainedValue()
    }

    func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            headers = [:]
        } else if let colon = trimmed.firstIndex(of: ":") {
            headers[trimmed[..<colon].lowercased()] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Returns false to make libcurl stop: the response body is larger than anything expected.
    func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard body.count + chunk.count <= request.maxBodyBytes else { return false }
        body.append(chunk.assumingMemoryBound(to: UInt8.self))
        return true
    }

    /// Fills libcurl's upload buffer from the file; `CURL_READFUNC_ABORT` on a read error, a
    /// file that shrank (the signed length would be a lie), or, at the last bytes, a digest that
    /// is not the promised one (the server then never has the whole body: no object is made).
    func read(into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        guard let body = request.body, let digest else { return 0 }
        let want = Int(min(Int64(count), body.length - readOffset))
        if want == 0 { return body.length == 0 && !digestMatches(body) ? 0x1000_0000 : 0 }
        let n = SystemCall.retrying { pread(body.fd, buffer, want, off_t(readOffset)) }
        guard n > 0 else {
            readFailure = n < 0 ? "reading \(body.path): \(String(cString: strerror(errno)))" : "\(body.path) became shorter while it was uploaded"
            return 0x1000_0000 // CURL_READFUNC_ABORT
        }
        digest.update(UnsafeRawBufferPointer(start: buffer, count: n))
        readOffset += Int64(n)
        if readOffset == body.length, !digestMatches(body) { return 0x1000_0000 } // CURL_READFUNC_ABORT
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

private let s3HeaderCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data else { return n }
    S3TransferContext.from(ctx).header(String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self))
    return n
}

private let s3WriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data, n > 0 else { return n }
    return S3TransferContext.from(ctx).write(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

private let s3ReadCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    guard let data else { return 0 }
    return S3TransferContext.from(ctx).read(into: data, count: size * count)
}
