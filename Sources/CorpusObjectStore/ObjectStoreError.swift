import Foundation
import CorpusHTTP

/// What can go wrong talking to object storage. Messages name the operation, the object key and
/// the endpoint's answer; never a credential or a presigned URL.
public enum ObjectStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No HTTP answer after the retries (refused, reset, timed out).
    case network(operation: String, key: String, reason: String)
    /// An HTTP answer that is a refusal: the status and S3's error code (`AccessDenied`,
    /// `SignatureDoesNotMatch`, `NoSuchBucket`, …) when the body named one.
    case refused(operation: String, key: String, status: Int, code: String?)
    /// A file of the local tree that cannot be read.
    case localFile(path: String, reason: String)
    /// The bucket's pointer names a newer catalog version, or another catalog, than the tree being uploaded.
    case bucketAhead(location: String, bucketCatalog: String, bucketVersion: Int, treeCatalog: String, treeVersion: Int)
    /// The tree has entitled corpora but no private location was given for their bundles.
    case privateLocationMissing(files: [String])
    /// The private location answers an anonymous GET: entitled bytes would be public.
    case privateLocationPublic(location: String)
    /// The private location lies inside the public one, which readers may list and read.
    case privateInsidePublic(private: String, public: String)
    /// A single PUT of S3 holds at most 5 GiB.
    case objectTooLarge(path: String, size: Int64)
    /// A file of the local tree whose bytes do not hash to the SHA-256 its name (or its hash just
    /// before the upload) gives: changed after publishing, or while it was sent. Not uploaded.
    case contentMismatch(path: String, expected: String, actual: String)
    /// The local tree is not one `corpusd publish` or `corpusd mirror` wrote.
    case notATree(path: String, reason: String)
    /// Not sent: the libcurl this process loaded refused an option the request needs (an older
    /// one than `CURLOPT_AWS_SIGV4`, say). No retry can help.
    case httpLibrary(operation: String, key: String, refusal: CurlOptionError)
    /// Not sent: a value the request's head would carry (a credential, a header) holds a control
    /// character (`RequestFieldCheck`). The reason names the field, never its value.
    case unsafeRequest(operation: String, key: String, reason: String)
    /// The calling task was cancelled during the request or the wait before asking again.
    case cancelled(operation: String, key: String)

    public var description: String {
        switch self {
        case let .network(operation, key, reason):
            return "\(operation) \(key.isEmpty ? "" : "\(key) ")failed: \(reason)"
        case let .refused(operation, key, status, code):
            return "\(operation) \(key.isEmpty ? "" : "\(key) ")was refused by the object store: HTTP \(status)\(code.map { " \($0)" } ?? "")"
        case let .localFile(path, reason):
            return "cannot read \(path): \(reason)"
        case let .bucketAhead(location, bucketCatalog, bucketVersion, treeCatalog, treeVersion):
            return "\(location) already holds catalog \(bucketCatalog) version \(bucketVersion); this tree is \(treeCatalog) version \(treeVersion)"
        case let .privateLocationMissing(files):
            return "\(files.count) file(s) of entitled corpora (\(files.prefix(3).joined(separator: ", "))) need a private location"
        case let .privateLocationPublic(location):
            return "\(location) can be read without credentials, so entitled bundles would be public"
        case let .privateInsidePublic(privateLocation, publicLocation):
            return "the private location \(privateLocation) lies inside the public location \(publicLocation)"
        case let .objectTooLarge(path, size):
            return "\(path) is \(size) bytes; one S3 PUT holds at most 5 GiB"
        case let .contentMismatch(path, expected, actual):
            return "\(path) does not hold the bytes its name promises: SHA-256 \(actual), not \(expected)"
        case let .notATree(path, reason):
            return "\(path) is not a published tree: \(reason)"
        case let .httpLibrary(operation, key, refusal):
            return "\(operation) \(key.isEmpty ? "" : "\(key) ")not sent: \(refusal)"
        case let .unsafeRequest(operation, key, reason):
            return "\(operation) \(key.isEmpty ? "" : "\(key) ")not sent: \(reason)"
        case let .cancelled(operation, key):
            return "\(operation) \(key.isEmpty ? "" : "\(key) ")cancelled"
        }
    }

    /// True for failures worth asking again: no answer, 5xx, 408, 429.
    var isTransient: Bool {
        switch self {
        case .network: return true
        case let .refused(_, _, status, _): return status >= 500 || status == 408 || status == 429
        default: return false
        }
    }
}
