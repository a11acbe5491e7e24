import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus gc`
struct GCCommand: ClientCommand {
    static let spec = CommandSpec(["gc"], "remove old versions, leftovers and partial downloads")

    let context: ClientContext

    func run() throws -> Int32 {
        let r = try client.gc()
        if console.json {
            console.emit(Result(r))
        } else {
            let models = r.removedEmbedders.isEmpty ? "" : ", \(r.removedEmbedders.count) unused embedder model\(r.removedEmbedders.count == 1 ? "" : "s")"
            console.info("removed \(r.removedVersions.count) old version\(r.removedVersions.count == 1 ? "" : "s"), \(r.removedPartials.count) partial download\(r.removedPartials.count == 1 ? "" : "s"), \(r.removedStaging.count) leftover\(r.removedStaging.count == 1 ? "" : "s")\(models); freed \(ByteFormat.size(r.bytesFreed))")
        }
        return 0
    }

    /// `{"removed_versions", "removed_partials", "removed_staging", "removed_embedders", "bytes_freed"}`
    struct Result: Encodable {
        let removedVersions: [String]
        let removedPartials: [String]
        let removedStaging: [String]
        let removedEmbedders: [String]
        let bytesFreed: Int64

        enum CodingKeys: String, CodingKey {
            case removedVersions = "removed_versions"
            case removedPartials = "removed_partials"
            case removedStaging = "removed_staging"
            case removedEmbedders = "removed_embedders"
            case bytesFreed = "bytes_freed"
        }

        init(_ r: CorpusClient.GCReport) {
            removedVersions = r.removedVersions
            removedPartials = r.removedPartials
            removedStaging = r.removedStaging
            removedEmbedders = r.removedEmbedders
            bytesFreed = r.bytesFreed
        }
    }
}
