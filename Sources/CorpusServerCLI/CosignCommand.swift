import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd cosign PUBLIC_DIR NOTE… --key KEY`
struct CosignCommand: ServerCommand {
    static let key = Option.path("--key", "KEY", "the publishing (catalog) key that signed the checkpoint").required()
    static let spec = CommandSpec(["cosign"], "add witnesses' cosignatures (the checkpoints corpusd witness wrote) to the tree's log/checkpoint",
                                  positionals: Positionals(usage: "PUBLIC_DIR NOTE...", count: 2...101), options: [key])

    let context: ServerContext

    func run() throws -> Int32 {
        let tree = cmd.positionals[0]
        var notes: [(file: String, bytes: [UInt8])] = []
        for file in cmd.positionals.dropFirst() {
            guard let data = FileManager.default.contents(atPath: file) else { throw PublisherError.sourceNotFound(path: file) }
            notes.append((file, [UInt8](data)))
        }
        let merged = try CheckpointCosigner.merge(tree: tree, notes: notes, key: try SecretKey(contentsOf: cmd.required(Self.key)))
        for (file, size) in merged.otherCheckpoint {
            console.err("skipped \(file): it cosigns tree size \(size.map(String.init) ?? "?"), the tree's checkpoint is at \(merged.checkpoint.size)")
        }
        if console.json {
            console.emit(Result(treeSize: merged.checkpoint.size, added: merged.added, skipped: merged.otherCheckpoint.map(\.file)))
        } else {
            console.info("added \(merged.added.count) cosignature(s) to \(tree)/\(TreeLog.checkpoint) at tree size \(merged.checkpoint.size)"
                         + (merged.added.isEmpty ? "" : ": " + merged.added.map(TerminalText.sanitizeLine).joined(separator: ", ")))
        }
        return merged.otherCheckpoint.isEmpty ? 0 : 3
    }

    /// `{"tree_size", "added", "skipped"}`
    struct Result: Encodable {
        let treeSize: UInt64
        let added: [String]
        let skipped: [String]

        enum CodingKeys: String, CodingKey {
            case added, skipped
            case treeSize = "tree_size"
        }
    }
}
