import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus sync [--wanted FILE] [--prune]`
struct SyncCommand: ClientCommand {
    static let wanted = Option.path("--wanted", "FILE", "JSON list of ids (\"id\", \"id@version\" or {\"id\":…,\"version\":…})")
    static let prune = Option.flag("--prune", "with --wanted: remove installed corpora the file does not list")
    static let channel = Option.text("--channel", "NAME", "follow channel NAME (besides stable) on every remote from now on; `stable` for stable only")
    static let spec = CommandSpec(["sync"], "update installed corpora, or install exactly the set a wanted-file names",
                                  options: [wanted, prune, channel])
    static let readsToken = true

    static let wantedHint = "write e.g. [\"docs\", \"field-guide-tides@2\", {\"id\": \"x\", \"version\": \"1\"}]"

    let context: ClientContext

    func run() async throws -> Int32 {
        var wanted: [WantedCorpus]?
        if let file = cmd.value(Self.wanted) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ErrorReport(code: "not-found", message: "cannot read the wanted-file \(file)", hint: "check the path", kind: .notFound)
            }
            do { wanted = try JSONDecoder().decode([WantedCorpus].self, from: data) } catch {
                // An entry with an @ but no version (or no id) is named with what it lacks.
                let what = (error as? VersionedNameError).map { "\(file): the entry \($0)" } ?? "\(file) is not a JSON list of corpus ids"
                throw ErrorReport(code: "usage", message: what, hint: Self.wantedHint, kind: .usage)
            }
        } else if cmd.has(Self.prune) {
            throw UsageError.missingRequired("\(Self.wanted.synopsis) (\(Self.prune.name) removes what the wanted-file does not list)",
                                           command: "sync \(Self.prune.name)")
        }
        if let channel = cmd.value(Self.channel) { try client.follow(channel: channel) }
        let progress = ProgressRenderer(console: console, limit: client.httpConfiguration.rateLimit)
        let outcomes = try await client.sync(wanted: wanted, prune: cmd.has(Self.prune), progress: progress.handler)
        progress.finish()
        return report(outcomes, verb: "sync")
    }
}
