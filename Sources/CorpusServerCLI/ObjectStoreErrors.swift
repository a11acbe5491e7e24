import CorpusCLIKit
import CorpusFormat
import CorpusHTTP
import CorpusObjectStore

/// How object-storage errors read on the `corpusd` command line. A configuration mistake is a
/// usage error; an endpoint that cannot be reached is a network failure. No message holds a
/// credential or a presigned URL (`ObjectStoreError` and `S3ConfigurationError` carry none).
enum ObjectStoreErrors {
    static let rerun = "run the same command again: objects already uploaded are skipped, and the pointer moves last"

    static func report(_ e: ObjectStoreError) -> ErrorReport {
        switch e {
        case .network:
            return ErrorReport(code: "object-store-unavailable", message: e.description, hint: "check --endpoint and the network; \(rerun)", kind: .network)
        case let .refused(_, _, status, code) where status == 401 || status == 403:
            return ErrorReport(code: "object-store-denied", message: e.description + (code == "SignatureDoesNotMatch" ? " (the secret key does not match the access key)" : ""),
                               hint: "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the credentials file), --region, and what the key may write", kind: .usage)
        case let .refused(_, _, status, code) where status == 404 || code == "NoSuchBucket":
            return ErrorReport(code: "no-such-bucket", message: e.description, hint: "create the bucket first, or check the name in --to", kind: .notFound)
        case .refused:
            return ErrorReport(code: "object-store-refused", message: e.description, hint: rerun, kind: .network)
        case .localFile:
            return ErrorReport(code: "io", message: e.description, hint: "check the tree's files and their permissions", kind: .localIO)
        case .bucketAhead:
            return ErrorReport(code: "bucket-ahead", message: e.description,
                               hint: "upload from the tree that published the bucket's catalog, or choose another --to prefix; clients refuse an older catalog", kind: .usage)
        case .privateLocationMissing:
            return ErrorReport(code: "private-location", message: e.description,
                               hint: "give --private s3://BUCKET/PREFIX, a location anonymous readers are refused", kind: .usage)
        case .privateLocationPublic, .privateInsidePublic:
            return ErrorReport(code: "private-location-public", message: e.description + "; nothing of an entitled corpus was uploaded",
                               hint: "deny anonymous reads of the private prefix in the bucket's policy, and keep it outside --to (docs/operations.md)", kind: .usage)
        case .objectTooLarge:
            return ErrorReport(code: "object-too-large", message: e.description, hint: "split the corpus into smaller ones", kind: .usage)
        case .contentMismatch:
            return ErrorReport(code: "tree-file-changed", message: e.description + "; it was not uploaded, nor anything after it",
                               hint: "restore the file (or publish again into a fresh --out), then upload again", kind: .localIO)
        case .notATree:
            return ErrorReport(code: "not-a-tree", message: e.description, hint: "give the folder corpusd publish --out (or corpusd mirror --out) wrote", kind: .usage)
        case .unsafeRequest:
            return ErrorReport(code: "unsafe-request", message: e.description,
                               hint: "check AWS_ACCESS_KEY_ID and AWS_SESSION_TOKEN (or the credentials file): a request never carries control characters", kind: .usage)
        case .cancelled:
            return ErrorReport(code: "cancelled", message: e.description, hint: rerun, kind: .failure)
        case .httpLibrary:
            return ErrorReport(code: "http-library", message: e.description,
                               hint: "corpusd loads the system's libcurl at the first request and needs libcurl \(CurlOptionError.minimumLibcurlVersion) or newer, with HTTPS", kind: .failure)
        }
    }

    static func report(_ e: S3ConfigurationError) -> ErrorReport {
        switch e {
        case .credentialsMissing, .credentialsFile:
            return ErrorReport(code: "credentials", message: e.description,
                               hint: "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write them to ~/.aws/credentials (never on the command line)", kind: .usage)
        default:
            return ErrorReport(code: "usage", message: e.description, hint: "see corpusd --help", kind: .usage)
        }
    }
}
