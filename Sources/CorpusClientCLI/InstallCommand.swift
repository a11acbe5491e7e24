import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus install ID[@VERSION]...`
struct InstallCommand: ClientCommand {
    static let spec = CommandSpec(["install"], "download, verify and install corpora", positionals: .oneOrMore("ID[@VERSION]"))
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        let wanted = try cmd.positionals.map { text -> WantedCorpus in
            let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
            return WantedCorpus(id: parts[0], version: try parts.count == 2 ? CorpusVersion.parse(parts[1]) : nil)
        }
        let progress = ProgressRenderer(console: console)
        let outcomes = try await client.install(wanted, progress: progress.handler)
        progress.finish()
        return report(outcomes, verb: "install")
    }
}
