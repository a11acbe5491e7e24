import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpus`: the client command. The table below is the whole command line; each command is a
/// type of its own file (`InstallCommand.swift`, …) over the library underneath.
public enum ClientProgram {
    static let globals: [Option] = [.home, .json, .quiet, .token, .offline, .limitRate, .help]

    /// The command table: every `corpus` command, in the order `--help` lists them.
    static let commands: [any ClientCommand.Type] = [
        RemoteAddCommand.self, RemoteListCommand.self, RemoteRemoveCommand.self,
        CatalogCommand.self, ShowCommand.self,
        InstallCommand.self, ImportCommand.self, RemoveCommand.self, ListCommand.self, SyncCommand.self,
        SearchCommand.self, DocumentsCommand.self, ReadCommand.self,
        VerifyCommand.self, GCCommand.self, StatusCommand.self,
        LoginCommand.self, LogoutCommand.self,
    ]

    static let parser = ArgumentParser(commands: commands.map { $0.spec }, globals: globals)

    static let manual = ManualPage(
        section: "1",
        summary: "install, update and search signed document corpora",
        description: [
            "corpus installs corpora (signed bundles of documents with their search index) from catalogs published with corpusd(8), keeps them up to date, and searches every installed corpus at once, offline. Nothing is trusted that does not verify against the key pinned with corpus remote add.",
            "Every command prints one JSON object with --json (progress as JSON lines on stderr). A command given several ids attempts every one; its exit status is that of the first refusal.",
        ],
        environment: [
            (name: "CORPUS_HOME", text: "the home folder when --home is not given (default: $XDG_DATA_HOME/corpus, else ~/.local/share/corpus)"),
            (name: "CORPUS_TOKEN", text: "an entitlement token, when --token is not given"),
        ],
        files: [
            (path: "$CORPUS_HOME/config.json", text: "the remotes and their pinned keys"),
            (path: "$CORPUS_HOME/corpora", text: "installed corpora, one folder per remote and id"),
        ])

    static let program = CommandLineProgram(name: "corpus", parser: parser, manual: manual, report: ClientErrors.report)

    /// Runs one `corpus` command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        if let ids = CompletionIDs.answer(Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
            Console(json: false, quiet: false).out(ids.joined(separator: "\n"))
            return 0
        }
        return await program.main(arguments) { cmd, console in
            guard let command = commands.first(where: { $0.spec.path == cmd.spec.path }) else {
                throw UsageError.unknownCommand(cmd.spec.name)
            }
            let context = ClientContext(cmd: cmd, console: console, environment: CommandEnvironment(ProcessInfo.processInfo.environment))
            if let refusal = context.settingsRefusal { throw refusal }
            if command.readsToken, let refusal = context.tokenRefusal { throw refusal }
            return try await command.init(context: context).run()
        }
    }
}
