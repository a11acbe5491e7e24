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
            console.emit(["removed_versions": r.removedVersions, "removed_partials": r.removedPartials,
                          "removed_staging": r.removedStaging, "removed_embedders": r.removedEmbedders, "bytes_freed": r.bytesFreed])
        } else {
            let models = r.removedEmbedders.isEmpty ? "" : ", \(r.removedEmbedders.count) unused embedder model\(r.removedEmbedders.count == 1 ? "" : "s")"
            console.info("removed \(r.removedVersions.count) old version\(r.removedVersions.count == 1 ? "" : "s"), \(r.removedPartials.count) partial download\(r.removedPartials.count == 1 ? "" : "s"), \(r.removedStaging.count) leftover\(r.removedStaging.count == 1 ? "" : "s")\(models); freed \(ByteFormat.size(r.bytesFreed))")
        }
        return 0
    }
}
