import Foundation

/// AWS Signature Version 4 query authentication ("presigned URLs"), the one piece of request
/// signing libcurl does not do (it signs headers, `CURLOPT_AWS_SIGV4`). Written against
/// "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)" in the Amazon S3
/// API reference; checked there by its known-answer example and against SeaweedFS, which refuses
/// a wrong signature or an expired URL itself.
///
/// A presigned URL is a bearer credential for one object until it expires: never log it.
public struct SigV4Presigner: Sendable {
    /// S3 refuses an expiry above seven days.
    public static let maximumExpiry = 604_800
    public let credentials: S3Credentials
    public let endpoint: S3Endpoint
    public let service: String

    public init(credentials: S3Credentials, endpoint: S3Endpoint, service: String = "s3") {
        self.credentials = credentials
        self.endpoint = endpoint
        self.service = service
    }

    /// A GET URL for `key` in `bucket` (path-style), good for `expires` seconds from `now`.
    public func presignedGET(bucket: String, key: String, expires: Int, now: Date = Date()) -> String {
        presign(method: "GET", host: endpoint.hostHeader, path: endpoint.objectPath(bucket: bucket, key: key), expires: expires, now: now)
    }

    /// The general form: `path` is the canonical, already percent-encoded URI path; the only
    /// signed header is `Host`, and the payload is `UNSIGNED-PAYLOAD` as S3 requires for presigning.
    public func presign(method: String, host: String, path: String, expires: Int, now: Date) -> String {
        precondition((1...Self.maximumExpiry).contains(expires), "presigned URL expiry out of range")
        let stamp = SigV4.timestamp(now)
        let day = String(stamp.prefix(8))
        let scope = "\(day)/\(endpoint.region)/\(service)/aws4_request"
        var query: [(String, String)] = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope)"),
            ("X-Amz-Date", stamp),
            ("X-Amz-Expires", String(expires)),
            ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        let canonicalQuery = query.map { (SigV4.uriEncode($0.0), SigV4.uriEncode($0.1)) }.sorted { $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let canonicalRequest = [method, path, canonicalQuery, "host:\(host)", "", "host", "UNSIGNED-PAYLOAD"].joined(separator: "\n")
        let stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, SHA256.hex(Array(canonicalRequest.utf8))].joined(separator: "\n")
        let key = SigV4.signingKey(secret: credentials.secretAccessKey, day: day, region: endpoint.region, service: service)
        let signature = Hex.encode(HMACSHA256.authenticate(key: key, message: stringToSign))
        return "\(endpoint.scheme)://\(host)\(path)?\(canonicalQuery)&X-Amz-Signature=\(signature)"
    }
}

/// The shared pieces of Signature Version 4.
public enum SigV4 {
    /// `YYYYMMDDTHHMMSSZ` in UTC.
    public static func timestamp(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request").
    static func signingKey(secret: String, day: String, region: String, service: String) -> [UInt8] {
        var key = HMACSHA256.authenticate(key: Array(("AWS4" + secret).utf8), message: day)
        for part in [region, service, "aws4_request"] { key = HMACSHA256.authenticate(key: key, message: part) }
        return key
    }

    /// Percent-encodes every byte but RFC 3986's unreserved `A-Z a-z 0-9 - . _ ~`, in upper-case
    /// hex, as SigV4 canonicalises URI path segments and query names and values.
    public static func uriEncode(_ text: String) -> String {
        var out = [UInt8]()
        for b in text.utf8 {
            switch b {
            case 0x41...0x5a, 0x61...0x7a, 0x30...0x39, 0x2d, 0x2e, 0x5f, 0x7e: out.append(b)
            default:
                out.append(0x25)
                Hex.append(b, uppercase: true, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
