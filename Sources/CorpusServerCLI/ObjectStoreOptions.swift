import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusObjectStore

/// The options that name object storage, shared by `publish --to`, `mirror --to` and
/// `serve --gate-only`. Credentials never come from here: only the environment variables AWS
/// tools read, or their credentials file (`S3Credentials.load`).
enum ObjectStoreOptions {
    static let to = Option.text("--to", "s3://BUCKET[/PREFIX]", "also upload the tree to this public-read location of S3-compatible storage")
    static let privateLocation = Option.text("--private", "s3://BUCKET/PREFIX", "where bundles of entitled corpora go: a location only credentials can read")
    static let endpoint = Option.text("--endpoint", "URL", "the S3 service, e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:8333")
    static let region = Option.text("--region", "REGION", "the region requests are signed for (default: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1)")

    static let uploadOptions = [to, privateLocation, endpoint, region]

    /// `--to`, `--private`, `--endpoint` and the credentials, or nil when `--to` is not given.
    static func uploadTarget(_ cmd: ParsedCommand, environment: [String: String]) throws -> UploadTarget? {
        guard let toText = cmd.value(Self.to) else {
            for option in [privateLocation, endpoint, region] where cmd.has(option) {
                throw UsageError.invalidValue(option: option.name, value: cmd.value(option) ?? "", expected: "to be given with --to")
            }
            return nil
        }
        let publicLocation = try location(toText, option: to)
        let privateLocation = try cmd.value(Self.privateLocation).map { try location($0, option: Self.privateLocation) }
        let (endpoint, credentials) = try service(cmd, environment: environment)
        return UploadTarget(publicLocation: publicLocation, privateLocation: privateLocation, endpoint: endpoint, credentials: credentials)
    }

    /// `--endpoint` (required here) and `--region`, with the credentials the environment names.
    static func service(_ cmd: ParsedCommand, environment: [String: String]) throws -> (S3Endpoint, S3Credentials) {
        guard let endpointText = cmd.value(Self.endpoint) else {
            throw UsageError.invalidValue(option: Self.endpoint.name, value: "", expected: "the S3 service's URL (required with object storage)")
        }
        try URLCredentials.refuse(endpointText, option: Self.endpoint.name,
                                  instead: "give the service's address alone, like https://HOST[:PORT]; \(URLCredentials.awsKeys)")
        let region = cmd.value(Self.region) ?? S3Credentials.region(environment: environment)
        let endpoint: S3Endpoint
        do {
            endpoint = try S3Endpoint(parsing: endpointText, region: region)
        } catch {
            switch error {
            case let .invalidEndpoint(_, reason):
                throw UsageError.badValue(option: Self.endpoint.name, value: endpointText, problem: "is not an S3 endpoint: \(reason)")
            case .invalidRegion:
                throw UsageError.invalidValue(option: cmd.has(Self.region) ? Self.region.name : "AWS_REGION", value: region, expected: "a region name (a-z 0-9 -)")
            default:
                throw error
            }
        }
        return (endpoint, try S3Credentials.load(environment: environment))
    }

    static func location(_ text: String, option: Option) throws -> S3Location {
        try URLCredentials.refuse(text, option: option.name, instead: "give the location alone, like s3://BUCKET/PREFIX; \(URLCredentials.awsKeys)")
        do {
            return try S3Location(parsing: text)
        } catch {
            guard case let .invalidLocation(_, reason) = error else { throw error }
            throw UsageError.badValue(option: option.name, value: text, problem: "is not an s3://BUCKET[/PREFIX] location: \(reason)")
        }
    }

    struct UploadTarget {
        var publicLocation: S3Location
        var privateLocation: S3Location?
        var endpoint: S3Endpoint
        var credentials: S3Credentials

        /// Uploads `tree`, drawing each object on `console` (JSON lines with `--json`).
        func upload(tree: String, console: Console, retryScale: Double) async throws -> TreeUploadSummary {
            let client = try S3Client(endpoint: endpoint, credentials: credentials, retry: ObjectStoreRetry().scaled(by: retryScale))
            return try await TreeUploader.upload(tree: tree, to: publicLocation, private: privateLocation, client: client) { step in
                if console.json {
                    console.emitLine(UploadEventLine(step))
                } else if !console.quiet {
                    switch step {
                    case let .uploading(key, bytes): console.progress("uploading \(key) (\(ByteFormat.size(bytes)))\n")
                    case let .present(key): console.progress("\(key) already in the bucket\n")
                    case let .deleted(key): console.progress("deleted \(key) (no catalog names it)\n")
                    }
                }
            }
        }
    }
}

/// `{"event": "upload"|"present"|"deleted", "key", "bytes"?}`: one step of an upload as a JSON line.
struct UploadEventLine: Encodable {
    let event: String
    let key: String
    let bytes: Int64?

    init(_ step: TreeUploadProgress) {
        switch step {
        case let .uploading(key, bytes): (event, self.key, self.bytes) = ("upload", key, bytes)
        case let .present(key): (event, self.key, bytes) = ("present", key, nil)
        case let .deleted(key): (event, self.key, bytes) = ("deleted", key, nil)
        }
    }
}

/// `{"location", "private"?, "catalog_version", "uploaded", "uploaded_bytes", "present", "deleted"}`
struct UploadResult: Encodable {
    let location: String
    let privateLocation: String?
    let catalogVersion: Int
    let uploaded: [String]
    let uploadedBytes: Int64
    let present: [String]
    let deleted: [String]

    enum CodingKeys: String, CodingKey {
        case location, uploaded, present, deleted
        case privateLocation = "private"
        case catalogVersion = "catalog_version"
        case uploadedBytes = "uploaded_bytes"
    }

    init(_ s: TreeUploadSummary, target: ObjectStoreOptions.UploadTarget) {
        location = target.publicLocation.description
        privateLocation = target.privateLocation?.description
        catalogVersion = s.catalogVersion
        uploaded = s.uploaded
        uploadedBytes = s.uploadedBytes
        present = s.present
        deleted = s.deleted
    }
}

/// Both values, or nil when either is missing.
func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
