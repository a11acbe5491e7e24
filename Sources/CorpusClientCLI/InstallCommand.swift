import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus install ID[@VERSION]...`
struct InstallCommand: ClientCommand {
    static let argument = "ID[@VERSION]"
    static let now = Option.flag("--now", "install the newest version now, even one whose rollout has not reached this client yet")
    static let spec = CommandSpec(["install"], "download, verify and install corpora", positionals: .oneOrMore(argument).completing(.catalogIDs), options: [now])
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        let wanted = try cmd.positionals.map(Self.wanted)
        let progress = ProgressRenderer(console: console, limit: client.httpConfiguration.rateLimit)
        let outcomes = try await client.install(wanted, waitsForRollout: !cmd.has(Self.now), progress: progress.handler)
        progress.finish()
        return report(outcomes, verb: "install")
    }

    /// `id`, `catalog/id` or either with `@VERSION` (`VersionedName`); a missing id or version,
    /// or a version that is no version, is the user's typo (exit 2), not a malformed file.
    static func wanted(_ text: String) throws -> WantedCorpus {
        do {
            return WantedCorpus(try VersionedName.parse(text))
        } catch {
            throw UsageError.badValue(option: argument, value: error.text, problem: error.problem)
        }
    }
}
