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

    static let program = CommandLineProgram(name: "corpus", parser: parser, report: ClientErrors.report)

    /// Runs one `corpus` command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        await program.main(arguments) { cmd, console in
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
