import Foundation

/// Where a tree lives in S3-compatible object storage: `s3://BUCKET[/PREFIX]`.
///
/// The bucket follows S3's naming rules (3 to 63 of `a-z 0-9 . -`, a letter or digit at each
/// end); the prefix is a path of segments of `A-Z a-z 0-9 . _ -`, none of them `.` or `..`,
/// so that an object key is always `PREFIX/` followed by a tree path (`TreePath.isSafe`).
public struct S3Location: Hashable, Sendable, CustomStringConvertible {
    public let bucket: String
    /// Without leading or trailing `/`; empty for the bucket's root.
    public let prefix: String

    public init(parsing text: String) throws(S3ConfigurationError) {
        guard text.hasPrefix("s3://") else { throw .invalidLocation(text, reason: "it does not start with s3://") }
        let rest = text.dropFirst(5)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = String(parts[0])
        guard Self.isBucketName(bucket) else {
            throw .invalidLocation(text, reason: "the bucket name must be 3 to 63 of a-z 0-9 . - with a letter or digit at each end")
        }
        var prefix = parts.count > 1 ? String(parts[1]) : ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty {
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".utf8)
            for segment in prefix.split(separator: "/", omittingEmptySubsequences: false) {
                guard !segment.isEmpty, segment != ".", segment != "..", segment.utf8.allSatisfy(allowed.contains) else {
                    throw .invalidLocation(text, reason: "the prefix must be segments of A-Z a-z 0-9 . _ - (no empty, . or .. segment)")
                }
            }
        }
        self.bucket = bucket
        self.prefix = prefix
    }

    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix
    }

    /// The object key of a tree path such as `bundles/<sha>.corpus.zip`.
    public func key(for treePath: String) -> String { prefix.isEmpty ? treePath : "\(prefix)/\(treePath)" }

    /// The tree path of an object key under this location, nil for a key outside it.
    public func treePath(ofKey key: String) -> String? {
        if prefix.isEmpty { return key }
        guard key.hasPrefix(prefix + "/") else { return nil }
        return String(key.dropFirst(prefix.count + 1))
    }

    /// The prefix to list this location's objects with (`PREFIX/`, or empty).
    public var listPrefix: String { prefix.isEmpty ? "" : prefix + "/" }

    public var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-".utf8)
        func alnum(_ b: UInt8) -> Bool { (0x61...0x7a).contains(b) || (0x30...0x39).contains(b) }
        return (3...63).contains(bytes.count) && bytes.allSatisfy(allowed.contains) && alnum(bytes.first!) && alnum(bytes.last!)
    }
}

/// The S3 service a location is reached at: `http(s)://HOST[:PORT]`, addressed path-style
/// (`/BUCKET/KEY`), and the region requests are signed for.
public struct S3Endpoint: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int?
    public let region: String

    public init(parsing text: String, region: String) throws(S3ConfigurationError) {
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = c.host, !host.isEmpty else {
            throw .invalidEndpoint(text, reason: "it is not an http or https URL")
        }
        guard c.path.isEmpty || c.path == "/", c.query == nil, c.fragment == nil, c.user == nil, c.password == nil else {
            throw .invalidEndpoint(text, reason: "give the service's address only (scheme, host, port), without a path, query or user")
        }
        guard !region.isEmpty, region.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }) else {
            throw .invalidRegion(region)
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = c.port
        self.region = region
    }

    /// The `Host` header value: the port only when it is not the scheme's default.
    public var hostHeader: String {
        guard let port, port != (scheme == "https" ? 443 : 80) else { return host }
        return "\(host):\(port)"
    }

    /// `scheme://host[:port]`, the origin a client is told to accept redirects to.
    public var origin: String { "\(scheme)://\(hostHeader)" }

    /// The path-style URL path of an object, each segment percent-encoded as SigV4 canonicalises it.
    public func objectPath(bucket: String, key: String) -> String {
        "/" + SigV4.uriEncode(bucket) + "/" + key.split(separator: "/", omittingEmptySubsequences: false).map { SigV4.uriEncode(String($0)) }.joined(separator: "/")
    }

    public func objectURL(bucket: String, key: String) -> String { origin + objectPath(bucket: bucket, key: key) }

    public var description: String { origin }
}

/// A mistake in how object storage was named or configured: a usage problem, never a refusal
/// of something the network sent. No case carries a secret.
public enum S3ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidLocation(String, reason: String)
    case invalidEndpoint(String, reason: String)
    case invalidRegion(String)
    /// No credentials: `tried` names where they were looked for.
    case credentialsMissing(tried: String)
    /// A credentials file that exists but cannot be used.
    case credentialsFile(path: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidLocation(text, reason): return "\(URLUserInfo.redacted(text)) is not an s3://BUCKET[/PREFIX] location: \(reason)"
        case let .invalidEndpoint(text, reason): return "\(URLUserInfo.redacted(text)) is not an S3 endpoint: \(reason)"
        case let .invalidRegion(region): return "\(region.debugDescription) is not a region name (a-z 0-9 -)"
        case let .credentialsMissing(tried): return "no S3 credentials found (looked at \(tried))"
        case let .credentialsFile(path, reason): return "cannot use the credentials file \(path): \(reason)"
        }
    }
}
