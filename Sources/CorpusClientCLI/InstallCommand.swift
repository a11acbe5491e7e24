import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus install ID[@VERSION]...`
struct InstallCommand: ClientCommand {
    static let argument = "ID[@VERSION]"
    static let spec = CommandSpec(["install"], "download, verify and install corpora", positionals: .oneOrMore(argument))
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        let wanted = try cmd.positionals.map(Self.wanted)
        let progress = ProgressRenderer(console: console)
        let outcomes = try await client.install(wanted, progress: progress.handler)
        progress.finish()
        return report(outcomes, verb: "install")
    }

    /// `id`, `catalog/id` or either with `@VERSION`; a version that is no version is the user's
    /// typo (exit 2), not a malformed file.
    static func wanted(_ text: String) throws -> WantedCorpus {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return WantedCorpus(id: parts.first ?? text) }
        guard let version = try? CorpusVersion.parse(parts[1]) else {
            throw UsageError.invalidValue(option: argument, value: text, expected: "an id with an optional @VERSION, like tides or tides@3 or tides@1.2.0")
        }
        return WantedCorpus(id: parts[0], version: version)
    }
}
