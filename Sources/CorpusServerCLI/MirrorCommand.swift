import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync
import CorpusMirror
import CorpusObjectStore

/// `corpusd mirror UPSTREAM_URL --out DIR --trust PUB [--token TOKEN] [--to s3://… --endpoint URL [--private s3://…]]`
struct MirrorCommand: ServerCommand {
    static let out = Option.path("--out", "DIR", "the mirror's folder (created if missing)").required()
    static let trust = Option.path("--trust", "PUB", "the upstream's root public key (minisign .pub file)").required()
    static let token = Option.text("--token", "TOKEN", "entitlement token, sent to the upstream only, to mirror entitled corpora too (or CORPUS_TOKEN)")
    static let spec = CommandSpec(["mirror"], "copy a published tree into DIR, verified against PUB, ready for corpusd serve or nginx; run again to update",
                                  positionals: .exactly("UPSTREAM_URL"), options: [out, trust, token] + ObjectStoreOptions.uploadOptions)

    let context: ServerContext

    func run() async throws -> Int32 {
        let env = context.environment
        let upstream = cmd.positionals[0]
        try URLCredentials.refuse(upstream, option: "UPSTREAM_URL", instead: "give the URL alone; an entitlement token goes in --token or CORPUS_TOKEN")
        guard let scheme = URLComponents(string: upstream)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
              URLComponents(string: upstream)?.host?.isEmpty == false else {
            throw UsageError.invalidValue(option: "UPSTREAM_URL", value: upstream, expected: "an http or https URL")
        }
        let key = try PublicKey(contentsOf: cmd.required(Self.trust))
        // The token goes into a request header: its characters are checked first, from either source.
        let token = try cmd.value(Self.token).map { try TokenInput.flag.checked($0) } ?? env.token.map { try TokenInput.environment.checked($0) }
        let out = try cmd.required(Self.out)
        let target = try ObjectStoreOptions.uploadTarget(cmd, environment: env.values)
        let updater = MirrorUpdater(upstream: upstream, directory: out, trustedKey: key, token: token,
                                    retry: RetryPolicy().scaled(by: env.retryScale))
        let drawer = MirrorProgressLines(console: console)
        let s = try await updater.run(progress: drawer.handle)
        let c = s.catalog
        // What the mirror verified and wrote to DIR is what goes to the bucket, in readers' order.
        var upload: TreeUploadSummary?
        if let target { upload = try await target.upload(tree: out, console: console, retryScale: env.retryScale) }
        if console.json {
            console.emit(Result(s, upload: both(upload, target).map(UploadResult.init)))
            return 0
        }
        if let upload, let target {
            console.info("uploaded to \(target.publicLocation): \(upload.uploaded.count) object(s) (\(ByteFormat.size(upload.uploadedBytes))), \(upload.present.count) already there, \(upload.deleted.count) deleted")
        }
        let was = s.previousVersion.map { $0 == c.version ? " (unchanged)" : " (was version \($0))" } ?? " (new mirror)"
        console.info("mirrored catalog \(c.id) version \(c.version)\(was) into \(out), expires \(c.expires)")
        console.info("bundles: \(s.fetched.count) fetched (\(ByteFormat.size(s.fetchedBytes))), \(s.present.count) already present, \(s.removed.count) removed")
        if !s.partsRemoved.isEmpty { console.info("catalog parts: \(s.partsRemoved.count) removed (no retained top document names them)") }
        if !s.skippedEntitled.isEmpty {
            console.info("skipped \(s.skippedEntitled.count) entitled corpora without a token: \(s.skippedEntitled.joined(separator: ", ")) (pass --token to mirror them)")
        }
        return 0
    }

    /// `{"catalog", "version", "previous_version", "expires", "fetched", "fetched_bytes", "present", "skipped_entitled", "removed"}`
    struct Result: Encodable {
        let catalog: String
        let version: Int
        /// null for a new mirror.
        let previousVersion: Nullable<Int>
        let expires: String
        let fetched: [String]
        let fetchedBytes: Int64
        let present: [String]
        let skippedEntitled: [String]
        let removed: [String]
        /// Only with `--to`.
        let upload: UploadResult?

        enum CodingKeys: String, CodingKey {
            case catalog, version, expires, fetched, present, removed, upload
            case previousVersion = "previous_version"
            case fetchedBytes = "fetched_bytes"
            case skippedEntitled = "skipped_entitled"
        }

        init(_ s: MirrorSummary, upload: UploadResult? = nil) {
            self.upload = upload
            catalog = s.catalog.id
            version = s.catalog.version
            previousVersion = Nullable(s.previousVersion)
            expires = s.catalog.expires
            fetched = s.fetched
            fetchedBytes = s.fetchedBytes
            present = s.present
            skippedEntitled = s.skippedEntitled
            removed = s.removed
        }
    }
}
