import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusObjectStore

/// `corpusd upload PUBLIC_DIR --to s3://BUCKET[/PREFIX] --endpoint URL [--private s3://…]`: the
/// upload step of `publish --to` alone, for a tree already written (after an upload that was cut
/// off, or to fill a second bucket). Writes a new catalog version never; the bucket is made to
/// match the tree, in readers' order.
struct UploadCommand: ServerCommand {
    static let spec = CommandSpec(["upload"], "upload a published tree to S3-compatible storage in the order its readers rely on, pointer last",
                                  positionals: .exactly("PUBLIC_DIR").completing(.files),
                                  options: [ObjectStoreOptions.to.required(), ObjectStoreOptions.privateLocation, ObjectStoreOptions.endpoint.required(), ObjectStoreOptions.region])

    let context: ServerContext

    func run() async throws -> Int32 {
        let env = context.environment
        let tree = cmd.positionals[0]
        // `--to` is required here, so there is a target (nil only without it).
        guard let target = try ObjectStoreOptions.uploadTarget(cmd, environment: env.values) else {
            throw UsageError.missingRequired(ObjectStoreOptions.to.name, command: Self.spec.name)
        }
        let summary = try await target.upload(tree: tree, console: console, retryScale: env.retryScale)
        if console.json {
            console.emit(UploadResult(summary, target: target))
        } else {
            console.info("uploaded catalog version \(summary.catalogVersion) to \(target.publicLocation): \(summary.uploaded.count) object(s) (\(ByteFormat.size(summary.uploadedBytes))), \(summary.present.count) already there, \(summary.deleted.count) deleted")
        }
        return 0
    }
}
